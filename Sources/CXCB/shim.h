// libxcb behind one thin shim, imported by ProResDisplay alone: the window,
// its properties and its events. The C helpers below stand in for what Swift
// cannot express plainly (the event type's "sent" bit, a client message's
// union, a fixed-size event handed to xcb_send_event).
#ifndef PRORES_DECODE_CXCB_SHIM_H
#define PRORES_DECODE_CXCB_SHIM_H

#include <xcb/xcb.h>
#include <string.h>

/// The event's type without the bit that marks events sent by other clients.
static inline uint8_t pd_xcb_event_type(const xcb_generic_event_t *event) { return event->response_type & 0x7f; }

/// Whether a client message is the window manager's WM_DELETE_WINDOW.
static inline int pd_xcb_is_delete(const xcb_client_message_event_t *event, xcb_atom_t protocols, xcb_atom_t deleteWindow) {
    return event->type == protocols && event->format == 32 && event->data.data32[0] == deleteWindow;
}

/// Asks the window manager (EWMH) to add (1), remove (0) or toggle (2) the
/// window's `state` (e.g. _NET_WM_STATE_FULLSCREEN).
static inline void pd_xcb_request_state(xcb_connection_t *c, xcb_window_t root, xcb_window_t window,
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
    xcb_send_event(c, 0, root, XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY, (const char *)&event);
}

#endif
