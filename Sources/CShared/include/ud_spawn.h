#ifndef USERDEBUG_UD_SPAWN_H
#define USERDEBUG_UD_SPAWN_H
/*
 * ud_spawn: the one posix_spawn action Swift cannot name. glibc declares
 * posix_spawn_file_actions_addclosefrom_np only under _GNU_SOURCE, which the Glibc module is
 * built without; ChildProcess (UserDebugKit) calls it through here.
 */
#include <spawn.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Adds "close every descriptor from `from` up" to `actions` (after the dup2 actions added so far):
 * 0, or an errno value. */
int ud_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#ifdef __cplusplus
}
#endif
#endif
