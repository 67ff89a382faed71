#ifndef USERDEBUG_CWL_PROTOCOL_H
#define USERDEBUG_CWL_PROTOCOL_H
/*
 * The opcode tables of the interfaces cwl speaks, written from the protocol specifications
 * (wayland.xml; wlr-data-control-unstable-v1.xml, version 2; ext-data-control-v1.xml, version 1).
 * Requests and events are numbered in the order the XML declares them. The ext and wlr
 * data-control interfaces declare the same requests and events in the same order, so one table
 * serves both; only the interface names and the version that brought the primary selection differ.
 *
 * Argument encodings (wire format): int/uint/object/new_id are 32-bit words in host order; a
 * string is a length word (including the NUL), the bytes, the NUL, padded to 4; a new_id of
 * unspecified interface (wl_registry.bind) is string interface, uint version, uint id; an fd
 * travels as SCM_RIGHTS ancillary data and takes no room in the message.
 */

/* The fixed object: wl_display is id 1. Client-created ids count up from 2; ids the server
 * creates (data offers) are 0xff000000 and up. */
#define CWL_DISPLAY_ID 1u
#define CWL_SERVER_ID_MIN 0xff000000u

/* wl_display */
enum { CWL_DISPLAY_SYNC = 0, CWL_DISPLAY_GET_REGISTRY = 1 };            /* requests */
enum { CWL_DISPLAY_EV_ERROR = 0, CWL_DISPLAY_EV_DELETE_ID = 1 };        /* events: (object, uint code, string) / (uint id) */

/* wl_registry */
enum { CWL_REGISTRY_BIND = 0 };                                         /* (uint name, new_id untyped) */
enum { CWL_REGISTRY_EV_GLOBAL = 0, CWL_REGISTRY_EV_GLOBAL_REMOVE = 1 }; /* (uint name, string interface, uint version) / (uint name) */

/* wl_callback */
enum { CWL_CALLBACK_EV_DONE = 0 };                                      /* (uint data) */

/* *_data_control_manager_v1 */
enum {
    CWL_MANAGER_CREATE_DATA_SOURCE = 0, /* (new_id source) */
    CWL_MANAGER_GET_DATA_DEVICE = 1,    /* (new_id device, object wl_seat) */
    CWL_MANAGER_DESTROY = 2,
};

/* *_data_control_device_v1 */
enum {
    CWL_DEVICE_SET_SELECTION = 0,         /* (object source, nullable) */
    CWL_DEVICE_DESTROY = 1,
    CWL_DEVICE_SET_PRIMARY_SELECTION = 2, /* (object source, nullable); wlr: since version 2 */
};
enum {
    CWL_DEVICE_EV_DATA_OFFER = 0,        /* (new_id offer): server-created, its offer events follow */
    CWL_DEVICE_EV_SELECTION = 1,         /* (object offer, nullable) */
    CWL_DEVICE_EV_FINISHED = 2,          /* the device is no longer valid */
    CWL_DEVICE_EV_PRIMARY_SELECTION = 3, /* (object offer, nullable); wlr: since version 2 */
};

/* *_data_control_source_v1 */
enum { CWL_SOURCE_OFFER = 0, CWL_SOURCE_DESTROY = 1 };    /* (string mime_type) / () */
enum { CWL_SOURCE_EV_SEND = 0, CWL_SOURCE_EV_CANCELLED = 1 }; /* (string mime_type, fd) / () */

/* *_data_control_offer_v1 */
enum { CWL_OFFER_RECEIVE = 0, CWL_OFFER_DESTROY = 1 };    /* (string mime_type, fd) / () */
enum { CWL_OFFER_EV_OFFER = 0 };                          /* (string mime_type) */

/* Interface names as the registry advertises them. */
#define CWL_IFACE_SEAT "wl_seat"
#define CWL_IFACE_EXT_MANAGER "ext_data_control_manager_v1"
#define CWL_IFACE_WLR_MANAGER "zwlr_data_control_manager_v1"

/* The wlr version that brought set_primary_selection / primary_selection. */
#define CWL_WLR_PRIMARY_SINCE 2u

#endif
