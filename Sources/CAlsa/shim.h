#ifndef DUALCAM_CALSA_SHIM_H
#define DUALCAM_CALSA_SHIM_H
// snd_pcm_*_alloca are macros over alloca, which Swift cannot call; the _malloc forms
// are used instead. Nothing else needs wrapping.
#include <alsa/asoundlib.h>

#endif
