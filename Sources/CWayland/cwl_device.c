/* The data-control device and its offers (see cwl_device.h). */
#define _GNU_SOURCE
#include "cwl_device.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static cwl_status bind_device(cwl_session *s, double deadline, cwl_error *err) {
    cwl_conn *c = &s->conn;
    if (c->seat_name == 0) return cwl_fail(err, CWL_UNSUPPORTED, 0, "the compositor advertises no seat");
    if (c->ext_name == 0 && c->wlr_name == 0)
        return cwl_fail(err, CWL_UNSUPPORTED, 0, "the compositor offers no data-control protocol");
    int is_ext = c->ext_name != 0;
    uint32_t version = is_ext ? 1 : (c->wlr_version >= CWL_WLR_PRIMARY_SINCE ? CWL_WLR_PRIMARY_SINCE : 1);
    if (s->selection == CWL_PRIMARY && !is_ext && version < CWL_WLR_PRIMARY_SINCE)
        return cwl_fail(err, CWL_UNSUPPORTED, 0, "the compositor's %s (version %u) has no primary selection",
                        CWL_IFACE_WLR_MANAGER, c->wlr_version);
    (void)deadline;
    return cwl_session_bind(s, c->seat_name, is_ext ? c->ext_name : c->wlr_name, is_ext, version, err);
}

cwl_status cwl_session_bind(cwl_session *s, uint32_t seat_name, uint32_t manager_name, int is_ext, uint32_t version,
                            cwl_error *err) {
    cwl_conn *c = &s->conn;
    s->is_ext = is_ext;
    s->manager_version = version;
    cwl_status st = cwl_bind(c, seat_name, CWL_IFACE_SEAT, 1, &s->seat, err);
    if (st == CWL_OK)
        st = cwl_bind(c, manager_name, is_ext ? CWL_IFACE_EXT_MANAGER : CWL_IFACE_WLR_MANAGER, version, &s->manager,
                      err);
    if (st != CWL_OK) return st;
    s->device = cwl_new_id(c);
    return cwl_request(c, err, s->manager, CWL_MANAGER_GET_DATA_DEVICE, s->device, s->seat);
}

static void reset(cwl_session *s, cwl_selection selection) {
    s->selection = selection;
    s->current = 0;
    s->finished = 0;
    memset(s->offers, 0, sizeof s->offers);
}

cwl_status cwl_session_begin(cwl_session *s, const char *display, const char *runtime_dir, cwl_selection selection,
                             double deadline, cwl_error *err) {
    reset(s, selection);
    return cwl_open_begin(&s->conn, display, runtime_dir, deadline, err);
}

cwl_status cwl_session_open(cwl_session *s, const char *display, const char *runtime_dir, cwl_selection selection,
                            double deadline, cwl_probe_result *probed, cwl_error *err) {
    reset(s, selection);
    cwl_status st = cwl_open(&s->conn, display, runtime_dir, deadline, err);
    if (st != CWL_OK) return st;
    if (probed != NULL) cwl_describe(&s->conn, probed);
    st = bind_device(s, deadline, err);
    if (st != CWL_OK) cwl_close(&s->conn);
    return st;
}

static void forget(cwl_offer *o) {
    free(o->types);
    memset(o, 0, sizeof *o);
}

void cwl_session_close(cwl_session *s) {
    cwl_close(&s->conn);
    for (size_t i = 0; i < CWL_MAX_OFFERS; i++) forget(&s->offers[i]);
}

void cwl_session_forget_offers(cwl_session *s) {
    cwl_error err;
    for (size_t i = 0; i < CWL_MAX_OFFERS; i++) {
        if (s->offers[i].id != 0) (void)cwl_request(&s->conn, &err, s->offers[i].id, CWL_OFFER_DESTROY);
        forget(&s->offers[i]);
    }
}

cwl_offer *cwl_session_offer(cwl_session *s, uint32_t id) {
    if (id == 0) return NULL;
    for (size_t i = 0; i < CWL_MAX_OFFERS; i++)
        if (s->offers[i].id == id) return &s->offers[i];
    return NULL;
}

/* A new offer: remembered in a free slot, else in place of one that is not the selection. */
static void announce(cwl_session *s, uint32_t id, cwl_error *err) {
    if (s->drop_offers) {
        cwl_request(&s->conn, err, id, CWL_OFFER_DESTROY);
        return;
    }
    cwl_offer *slot = NULL;
    for (size_t i = 0; i < CWL_MAX_OFFERS && slot == NULL; i++)
        if (s->offers[i].id == 0) slot = &s->offers[i];
    for (size_t i = 0; i < CWL_MAX_OFFERS && slot == NULL; i++)
        if (s->offers[i].id != s->current) slot = &s->offers[i];
    if (slot->id != 0) cwl_request(&s->conn, err, slot->id, CWL_OFFER_DESTROY);
    forget(slot);
    slot->id = id;
    slot->late = s->fenced;
}

int cwl_session_offer_is_ours(const cwl_session *s, const cwl_offer *o) {
    uint32_t all = s->ours_count >= 32 ? UINT32_MAX : (1u << s->ours_count) - 1;
    return o != NULL && o->late && s->ours_count > 0 && o->type_count == s->ours_count && o->ours_seen == all;
}

static void add_type(cwl_session *s, cwl_offer *o, const char *type) {
    o->type_count++;
    for (uint32_t i = 0; i < s->ours_count; i++)
        if (strcmp(type, s->ours[i]) == 0) o->ours_seen |= 1u << i;
    if (!s->keep_types) return;
    size_t n = strlen(type);
    char *grown = realloc(o->types, o->types_len + n + 2);
    if (grown == NULL) return;
    memcpy(grown + o->types_len, type, n);
    grown[o->types_len + n] = '\n';
    grown[o->types_len + n + 1] = '\0';
    o->types = grown;
    o->types_len += n + 1;
}

int cwl_session_event(cwl_session *s, cwl_msg *m, cwl_error *err) {
    cwl_offer *offer = cwl_session_offer(s, m->object);
    if (offer != NULL) {
        const char *type = m->opcode == CWL_OFFER_EV_OFFER ? cwl_arg_string(m) : NULL;
        if (type != NULL) add_type(s, offer, type);
        return 1;
    }
    if (m->object != s->device) return m->object >= CWL_SERVER_ID_MIN; /* a dropped offer's events */
    uint32_t wanted = s->selection == CWL_PRIMARY ? CWL_DEVICE_EV_PRIMARY_SELECTION : CWL_DEVICE_EV_SELECTION;
    if (m->opcode == CWL_DEVICE_EV_DATA_OFFER) {
        uint32_t id = cwl_arg_uint(m);
        if (!m->bad) announce(s, id, err);
    } else if (m->opcode == wanted) {
        s->current = cwl_arg_uint(m);
    } else if (m->opcode == CWL_DEVICE_EV_FINISHED) {
        s->finished = 1;
    }
    return 1;
}
