#ifndef DUALCAM_CSODIUM_SHIM_H
#define DUALCAM_CSODIUM_SHIM_H
// libsodium (Debian's libsodium-dev): the ristretto255 group under pairing's CPace.
// Only the headers pairing uses, so that nothing else of libsodium is reachable by
// accident; none of them is a macro or variadic.
#include <stddef.h>
#include <sodium/core.h>
#include <sodium/crypto_core_ristretto255.h>
#include <sodium/crypto_scalarmult_ristretto255.h>
#endif
