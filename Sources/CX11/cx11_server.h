#ifndef USERDEBUG_CX11_SERVER_H
#define USERDEBUG_CX11_SERVER_H
/*
 * The serving core (cx11_server.c): what a selection owner does with the X events and timers of
 * the selection it holds, shared by the detached owner process (cx11_serve.c: its poll, its
 * listener, leaving with _exit) and the daemon's in-process host (cx11_host.c: polled by the
 * daemon's own loop beside its key grabs). Neither waits past a deadline.
 */
#include "cx11_clearcheck.h"
#include "cx11_content.h"
#include "cx11_handoff.h"
#include "cx11_listener.h"
#include "cx11_transfer.h"

typedef struct cx11_server {
    cx11_link x;
    int xfd, sfd;           /* the X connection's socket; the signalfd (-1: none) */
    int owning;             /* we still own the selection */
    int leaving;            /* SIGTERM or lifetime: leave once hand-off and transfers end */
    double leave_by;        /* while starting to leave: no round trip waits past this */
    int silent;             /* the server did not answer a round trip by leave_by */
    int window_destroyed;   /* a secret's clear destroyed our window (cx11_server_run_timers) */
    double connect_timeout; /* the copy's bound on an X server that does not answer */
    double clear_at;        /* secrets: 0 when never */
    double emptied_until;   /* a secret's clear: serving empty content to keepers until this (0: not) */
    int emptied_read;       /* a reader (a clipboard keeper) asked for the empty content */
    double leave_at;        /* lifetime: 0 when never */
    unsigned pending_stamps;/* zero-length appends whose PropertyNotify has not arrived yet */
    cx11_content first;     /* the payload the process was forked with */
    cx11_holding held;
    cx11_transfers transfers;
    cx11_handoff handoff;
    cx11_listener listener;
    cx11_clear_check check; /* the read-back after a secret's clear (the daemon's host runs it in a
                               process it forks) */
} cx11_server;

/* How long a round trip may wait: 1 s, and while starting to leave no later than leave_by. */
double cx11_server_reply_deadline(const cx11_server *sv);

/* Is our window the owner, as the server sees it? 1 yes, 0 no (or the connection died), -1 no
 * answer in time. */
int cx11_server_ask_owner(cx11_server *sv);

/* Ask the clipboard manager to save what we own (see cx11_handoff_ask); whether it was asked. */
int cx11_server_ask_manager(cx11_server *sv);

/* SIGTERM or lifetime: ask a clipboard manager to save the content (bounded), then give up. */
void cx11_server_start_leaving(cx11_server *sv);

/* A secret's selection was taken over before its clear, and at the clear's time its new owner
 * still shows the token without the secret's markers (a keeper that copies every selection at
 * once and serves it in our place): clear as our own clear does, taking the selection with empty
 * content, and arm the read-back, which runs before we leave. */
void cx11_server_clear_taken_over(cx11_server *sv);

/* Dispatch one event (or an error from one of our unchecked requests). */
void cx11_server_handle_event(cx11_server *sv, xcb_generic_event_t *ev);

/* A server timestamp now, from a zero-length append to our window's property (events that arrive
 * meanwhile are handled). 0 when the deadline passed or the connection died. */
int cx11_server_fresh_timestamp(cx11_server *sv, double deadline, xcb_timestamp_t *out);

/* Serve ct (its reference passes to us), taken at `time`, with the timers of its copy (`terms`). */
void cx11_server_serve_copy(cx11_server *sv, cx11_content *ct, xcb_timestamp_t time, const cx11_offer_header *terms);

/* May we take the selection again for a copy? Only while we own it, stay, and hand nothing off. */
int cx11_server_may_retake(const cx11_server *sv);

/* Timers (transfers, a secret's clear, lifetime, hand-off, listener, previous content); returns the
 * next deadline (0 when none). */
double cx11_server_run_timers(cx11_server *sv);

/* The earlier of two deadlines, 0 meaning none. */
double cx11_earliest(double a, double b);

#endif
