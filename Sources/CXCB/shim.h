// libxcb behind one thin shim, imported by ProResDisplay alone: the window,
// its properties and its events. libxcb is opened with dlopen when `play`
// needs it, not linked: like the Vulkan loader, it must not be required to
// start the tool on a headless machine (a CI server, a GPU host). The
// C helpers below stand in for what Swift cannot express plainly (the
// function table, the event type's "sent" bit, a client message's union, a
// fixed-size event handed to xcb_send_event).
#ifndef PRORES_DECODE_CXCB_SHIM_H
#define PRORES_DECODE_CXCB_SHIM_H

#include <xcb/xcb.h>
#include <dlfcn.h>
#include <string.h>

/// Every libxcb function the window uses: X(return type, name, parameters).
#define PD_XCB_FUNCTIONS(X) \
    X(xcb_connection_t *, xcb_connect, (const char *display, int *screen)) \
    X(int, xcb_connection_has_error, (xcb_connection_t *c)) \
    X(void, xcb_disconnect, (xcb_connection_t *c)) \
    X(const struct xcb_setup_t *, xcb_get_setup, (xcb_connection_t *c)) \
    X(xcb_screen_iterator_t, xcb_setup_roots_iterator, (const xcb_setup_t *setup)) \
    X(void, xcb_screen_next, (xcb_screen_iterator_t *i)) \
    X(xcb_intern_atom_cookie_t, xcb_intern_atom, (xcb_connection_t *c, uint8_t only_if_exists, uint16_t name_len, const char *name)) \
    X(xcb_intern_atom_reply_t *, xcb_intern_atom_reply, (xcb_connection_t *c, xcb_intern_atom_cookie_t cookie, xcb_generic_error_t **e)) \
    X(uint32_t, xcb_generate_id, (xcb_connection_t *c)) \
    X(xcb_void_cookie_t, xcb_create_window, (xcb_connection_t *c, uint8_t depth, xcb_window_t wid, xcb_window_t parent, int16_t x, \
      int16_t y, uint16_t width, uint16_t height, uint16_t border_width, uint16_t window_class, xcb_visualid_t visual, \
      uint32_t value_mask, const void *value_list)) \
    X(xcb_void_cookie_t, xcb_change_property, (xcb_connection_t *c, uint8_t mode, xcb_window_t window, xcb_atom_t property, \
      xcb_atom_t type, uint8_t format, uint32_t data_len, const void *data)) \
    X(xcb_void_cookie_t, xcb_map_window, (xcb_connection_t *c, xcb_window_t window)) \
    X(xcb_void_cookie_t, xcb_destroy_window, (xcb_connection_t *c, xcb_window_t window)) \
    X(int, xcb_flush, (xcb_connection_t *c)) \
    X(xcb_generic_event_t *, xcb_poll_for_event, (xcb_connection_t *c)) \
    X(xcb_void_cookie_t, xcb_send_event, (xcb_connection_t *c, uint8_t propagate, xcb_window_t destination, uint32_t event_mask, \
      const char *event)) \
    X(xcb_get_keyboard_mapping_cookie_t, xcb_get_keyboard_mapping, (xcb_connection_t *c, xcb_keycode_t first_keycode, uint8_t count)) \
    X(xcb_get_keyboard_mapping_reply_t *, xcb_get_keyboard_mapping_reply, (xcb_connection_t *c, \
      xcb_get_keyboard_mapping_cookie_t cookie, xcb_generic_error_t **e)) \
    X(xcb_keysym_t *, xcb_get_keyboard_mapping_keysyms, (const xcb_get_keyboard_mapping_reply_t *reply)) \
    X(int, xcb_get_keyboard_mapping_keysyms_length, (const xcb_get_keyboard_mapping_reply_t *reply))

/// The functions, looked up in libxcb.so.1; Swift calls them through the fields.
typedef struct {
#define PD_XCB_FIELD(type, name, parameters) type (*name) parameters;
    PD_XCB_FUNCTIONS(PD_XCB_FIELD)
#undef PD_XCB_FIELD
} pd_xcb_functions;

/// Opens libxcb.so.1 and fills `table`: NULL when every function was
/// found, else a sentence saying what is missing.
static inline const char *pd_xcb_load(pd_xcb_functions *table) {
    void *library = dlopen("libxcb.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return "libxcb.so.1 cannot be loaded (install libxcb1)";
#define PD_XCB_LOOKUP(type, name, parameters) \
    if ((table->name = (type (*) parameters)dlsym(library, #name)) == NULL) return "libxcb.so.1 lacks " #name;
    PD_XCB_FUNCTIONS(PD_XCB_LOOKUP)
#undef PD_XCB_LOOKUP
    return NULL;
}

/// The event's type without the bit that marks events sent by other clients.
static inline uint8_t pd_xcb_event_type(const xcb_generic_event_t *event) { return event->response_type & 0x7f; }

/// Whether a client message is the window manager's WM_DELETE_WINDOW.
static inline int pd_xcb_is_delete(const xcb_client_message_event_t *event, xcb_atom_t protocols, xcb_atom_t deleteWindow) {
    return event->type == protocols && event->format == 32 && event->data.data32[0] == deleteWindow;
}

/// Asks the window manager (EWMH) to add (1), remove (0) or toggle (2) the
/// window's `state` (e.g. _NET_WM_STATE_FULLSCREEN).
static inline void pd_xcb_request_state(const pd_xcb_functions *xcb, xcb_connection_t *c, xcb_window_t root, xcb_window_t window,
                                        xcb_atom_t wmState, xcb_atom_t state, uint32_t action) {
    xcb_client_message_event_t event;
    memset(&event, 0, sizeof event);
    event.response_type = XCB_CLIENT_MESSAGE;
    event.format = 32;
    event.window = window;
    event.type = wmState;
    event.data.data32[0] = action;
    event.data.data32[1] = state;
    event.data.data32[3] = 1;  // source: a normal application
    xcb->xcb_send_event(c, 0, root, XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY, (const char *)&event);
}

#endif
