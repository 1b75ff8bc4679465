/* bytes.h — a growing byte buffer to write and a bounded one to read, for
 * the checkpoint's sections (io/checkpoint.c keeps the file's container;
 * the modules that own state write and read their own sections' bodies).
 * Values go in the machine's byte order; the checkpoint's header records it. */
#ifndef NBODY6C_BYTES_H
#define NBODY6C_BYTES_H

#include <stddef.h>
#include <stdint.h>

typedef struct wbuf {
    unsigned char *p;
    size_t len, cap;
    int oom;          /* an allocation failed: nothing more is written */
} wbuf;

typedef struct rbuf {
    const unsigned char *p;
    size_t len, pos;
    int bad;          /* a read went past the end: every later read gives zeros */
} rbuf;

void wb_put(wbuf *w, const void *d, size_t n);
void rb_get(rbuf *r, void *d, size_t n);

static inline void wb_u32(wbuf *w, uint32_t v) { wb_put(w, &v, 4); }
static inline void wb_i64(wbuf *w, int64_t v) { wb_put(w, &v, 8); }
static inline void wb_f64(wbuf *w, double v) { wb_put(w, &v, 8); }
static inline uint32_t rb_u32(rbuf *r) { uint32_t v; rb_get(r, &v, 4); return v; }
static inline int64_t rb_i64(rbuf *r) { int64_t v; rb_get(r, &v, 8); return v; }
static inline double rb_f64(rbuf *r) { double v; rb_get(r, &v, 8); return v; }

/* 0 when the whole of r was read and nothing went past its end, else -1 */
static inline int rb_done(const rbuf *r) { return r->bad || r->pos != r->len ? -1 : 0; }

#endif
