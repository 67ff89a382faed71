#ifndef USERDEBUG_CZLIB_SHIM_H
#define USERDEBUG_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro over inflateInit2_ (it passes the header's version and the stream's
 * size), which Swift cannot import; expose it as a function. windowBits: 15 for a zlib stream,
 * 15 + 16 for gzip, -15 for raw deflate. */
static inline int userdebug_inflate_init(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
#endif
