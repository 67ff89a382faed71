#ifndef USERDEBUG_CX11_CLEARCHECK_H
#define USERDEBUG_CX11_CLEARCHECK_H
/*
 * After a secret's clear, the owner (the detached one, or a process the daemon's host forks for
 * it) reads the selection back for a while
 * (UD_CLEAR_CHECK_SECONDS) to confirm the token is gone. A clipboard keeper that puts it back
 * (the same bytes, offered without the secret's markers) is recorded in the report file the copy
 * named (cx11_own_options.clear_report), which the next secret copy and `doctor` read; a clear
 * that held removes the file. Only a 64-bit hash and the length of the token are kept for this,
 * not its bytes.
 */
#include "cx11_content.h"
#include "cx11_serve.h"
#include "ud_clearreport.h"

#include <limits.h>
#include <stdint.h>

typedef struct cx11_clear_check {
    uint64_t hash;          /* FNV-1a of the cleared token */
    size_t len;             /* its length */
    int armed;              /* a secret's clear began: run the check before leaving */
    char report[PATH_MAX];  /* "": no report file (a copy that named none); a copy of the path, as
                               the daemon's host keeps no caller's strings */
} cx11_clear_check;

/* Remember the report file's path (NULL or "": none, and no check is ever run). */
void cx11_clear_check_init(cx11_clear_check *k, const char *report);

/* A secret's clear begins: remember what to look for (a no-op without a report file). */
void cx11_clear_check_arm(cx11_clear_check *k, const cx11_content *secret);

/* Whether the selection's owner (not x's window) now offers `secret` without the secret's
 * markers, looked at once on x's connection with a window of its own made under root (each round
 * trip bounded by a second); 0 without a report file. */
int cx11_clear_check_token_shown(cx11_clear_check *k, const cx11_link *x, xcb_window_t root,
                                 const cx11_content *secret);

/* Run the armed check on x's connection (our window is gone; a new one is made under root):
 * blocks until the token is seen back, something else is on the selection, or the check's time passes,
 * each round trip bounded by a second. Writes or removes the report; disarms. */
void cx11_clear_check_run(cx11_clear_check *k, const cx11_link *x, xcb_window_t root);

#endif
