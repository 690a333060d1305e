#ifndef DUALCAM_CAVAHI_SHIM_H
#define DUALCAM_CAVAHI_SHIM_H
// avahi_string_list_new and avahi_entry_group_add_service are variadic, which Swift
// cannot call: the Swift side builds TXT lists with avahi_string_list_add and publishes
// through this non-variadic wrapper (NULL domain and host: the daemon's own).
#include <stddef.h>
#include <net/if.h>
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>

static inline int dc_avahi_add_service_on(AvahiEntryGroup *group, AvahiIfIndex interface, AvahiProtocol proto,
                                          const char *name, const char *type, uint16_t port, AvahiStringList *txt) {
    return avahi_entry_group_add_service_strlst(group, interface, proto, (AvahiPublishFlags)0,
                                                name, type, NULL, NULL, port, txt);
}

static inline int dc_avahi_update_txt_on(AvahiEntryGroup *group, AvahiIfIndex interface, AvahiProtocol proto,
                                         const char *name, const char *type, AvahiStringList *txt) {
    return avahi_entry_group_update_service_txt_strlst(group, interface, proto, (AvahiPublishFlags)0,
                                                       name, type, NULL, txt);
}

#endif
