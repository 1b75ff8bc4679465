/* durable.c — whole-or-absent files (temporary name, fsync, rename, folder
 * fsync), the test fault switch NBODY6C_FAULT, and the FNV-1a checksum used
 * by the checkpoint. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/durable.h"
#include "common/tuning.h"

void durable_tmp_name(const char *path, char *tmp, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(tmp, len, "%.*s/.%s.tmp", (int)(slash - path), path, slash + 1);
    else
        snprintf(tmp, len, ".%s.tmp", path);
}

int durable_fault(const char *kind, int64_t seq)
{
    const char *env = tuning_read().fault; /* a test hook (common/tuning.h) */
    if (!env || !*env) return 0;
    size_t klen = strlen(kind);
    for (const char *p = env; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (strncmp(p, kind, klen) == 0 && p[klen] == '@') {
            long long k = strtoll(p + klen + 1, NULL, 10);
            if (k >= 1 && seq >= k) return 1;
        }
    }
    return 0;
}

int durable_sync_dir(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash == path) snprintf(dir, sizeof dir, "/");
    else if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return -1;
    /* some file systems refuse fsync on folders (EINVAL); the rename itself
     * is still atomic there, so that is not a failure */
    int rc = fsync(fd);
    if (rc != 0 && (errno == EINVAL || errno == EROFS)) rc = 0;
    close(fd);
    return rc;
}

static int fail(const char *what, const char *path, const char *tmp, char *err, size_t errlen)
{
    int e = errno;
    snprintf(err, errlen, "%s: %s failed: %s (the previous %s, if any, is kept)", path, what,
             strerror(e), path);
    if (tmp) unlink(tmp);
    errno = e;
    return -1;
}

int durable_commit(const char *tmp, const char *path, char *err, size_t errlen)
{
    int fd = open(tmp, O_RDONLY);
    if (fd < 0) return fail("reopening the temporary file", path, tmp, err, errlen);
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return fail("fsync", path, tmp, err, errlen);
    }
    close(fd);
    if (rename(tmp, path) != 0) return fail("rename", path, tmp, err, errlen);
    if (durable_sync_dir(path) != 0) return fail("fsync of the folder", path, NULL, err, errlen);
    return 0;
}

int durable_write(const char *path, const void *data, size_t len, const char *kind,
                  int64_t seq, char *err, size_t errlen)
{
    char tmp[4200];
    durable_tmp_name(path, tmp, sizeof tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return fail("creating the temporary file", path, NULL, err, errlen);
    const char *p = data;
    size_t left = len;
    int injected = durable_fault(kind, seq);
    if (injected) left = len / 2; /* a torn write, then "disk full" */
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            errno = e;
            return fail("write", path, tmp, err, errlen);
        }
        p += w;
        left -= (size_t)w;
    }
    if (injected) {
        close(fd);
        errno = ENOSPC;
        return fail("write (NBODY6C_FAULT)", path, tmp, err, errlen);
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return fail("fsync", path, tmp, err, errlen);
    }
    if (close(fd) != 0) return fail("close", path, tmp, err, errlen);
    if (rename(tmp, path) != 0) return fail("rename", path, tmp, err, errlen);
    if (durable_sync_dir(path) != 0) return fail("fsync of the folder", path, NULL, err, errlen);
    return 0;
}

uint64_t durable_fnv64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < len; k++) {
        h ^= p[k];
        h *= 0x100000001b3ULL;
    }
    return h;
}
