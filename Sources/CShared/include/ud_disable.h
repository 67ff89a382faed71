#ifndef USERDEBUG_UD_DISABLE_H
#define USERDEBUG_UD_DISABLE_H
/*
 * USERDEBUG_DISABLE: the speed mechanisms turned off for diagnosis (docs/diagnosis.md), a comma
 * list of names (`all` for every one). Read once per process, at the first question; a forked
 * owner keeps its parent's answer. The C side answers for the mechanisms written in C; the Swift
 * side (UserDebugKit's DisabledMechanisms) reads the same variable for its own.
 */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ud_mechanism {
    UD_MECH_RESIDENT = 1u << 0,       /* "resident": the resident owner's socket, both ends */
    UD_MECH_GLOBALS_CACHE = 1u << 1,  /* "globals-cache": CWayland's *.userdebug-globals-UID file */
} ud_mechanism;

/* Whether USERDEBUG_DISABLE names `mechanism` (or `all`). */
int ud_disabled(ud_mechanism mechanism);

/* The mechanisms a USERDEBUG_DISABLE value names (exposed for the tests). */
unsigned ud_disable_parse(const char *list);

#ifdef __cplusplus
}
#endif
#endif
