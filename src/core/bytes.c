/* bytes.c — the byte buffers of bytes.h. */
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"

void wb_put(wbuf *w, const void *d, size_t n)
{
    if (w->oom) return;
    if (w->len + n > w->cap) {
        size_t c = w->cap ? w->cap : 1 << 16;
        while (c < w->len + n) c *= 2;
        unsigned char *q = realloc(w->p, c);
        if (!q) {
            w->oom = 1;
            return;
        }
        w->p = q;
        w->cap = c;
    }
    if (n) memcpy(w->p + w->len, d, n);
    w->len += n;
}

void rb_get(rbuf *r, void *d, size_t n)
{
    if (r->bad || n > r->len - r->pos) {
        r->bad = 1;
        memset(d, 0, n);
        return;
    }
    memcpy(d, r->p + r->pos, n);
    r->pos += n;
}
