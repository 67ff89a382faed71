#ifndef USERDEBUG_CBROTLI_SHIM_H
#define USERDEBUG_CBROTLI_SHIM_H
/* The decoder only: userdebug reads br bodies and never writes them. libbrotlidec needs
 * libbrotlicommon after it on a static link line (the modulemap lists them in that order). */
#include <brotli/decode.h>
#endif
