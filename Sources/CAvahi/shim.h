#ifndef DUALCAM_CAVAHI_SHIM_H
#define DUALCAM_CAVAHI_SHIM_H
// avahi_string_list_new and avahi_entry_group_add_service are variadic; Swift calls
// these non-variadic wrappers instead.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/address.h>

static inline AvahiStringList *dc_avahi_string_list_one(const char *text) {
    return avahi_string_list_new(text, NULL);
}
static inline int dc_avahi_add_service(AvahiEntryGroup *group, const char *name, const char *type,
                                       uint16_t port, AvahiStringList *txt) {
    return avahi_entry_group_add_service_strlst(group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, 0,
                                                name, type, NULL, NULL, port, txt);
}
static inline int dc_avahi_if_unspec(void) { return AVAHI_IF_UNSPEC; }
static inline int dc_avahi_proto_unspec(void) { return AVAHI_PROTO_UNSPEC; }

#endif
