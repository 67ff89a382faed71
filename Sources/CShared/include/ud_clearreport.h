#ifndef USERDEBUG_UD_CLEARREPORT_H
#define USERDEBUG_UD_CLEARREPORT_H
/*
 * The clear report, for every backend's read-back after a secret's clear (the X11 one in
 * cx11_clearcheck.c, the Wayland one in cwl_clearcheck.c): what is kept of the token to
 * recognise it (a 64-bit FNV-1a hash and its length, never its bytes), and the report file a
 * restore is written to ("restored", time, selection, who; read by the CLI's ClearReport).
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How long after the clear a restored token is looked for. */
#define UD_CLEAR_CHECK_SECONDS 5.0

/* FNV-1a over n bytes. */
uint64_t ud_clear_hash(const uint8_t *bytes, size_t n);

/* Whether bytes are the token hashed as `hash`, `len` bytes long. */
int ud_clear_is_token(const uint8_t *bytes, size_t n, uint64_t hash, size_t len);

/* Write the report atomically (a temporary file renamed over it, mode 0600): the token was seen
 * back on `selection` (CLIPBOARD or PRIMARY), held by `who`. Best effort. */
void ud_clear_report_restored(const char *path, const char *selection, const char *who);

/* The clear held: remove the report (best effort). */
void ud_clear_report_held(const char *path);

#ifdef __cplusplus
}
#endif
#endif
