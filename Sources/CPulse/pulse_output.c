// libpulse behind one small C layer: its callbacks run on the main loop's
// own thread and hand results over under the loop's lock, which C states
// plainly and Swift's strict concurrency cannot.
#include "pulse_output.h"

#include <dlfcn.h>
#include <pulse/pulseaudio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

/// Every libpulse function used: X(return type, name, parameters).
#define PD_PULSE_FUNCTIONS(X) \
    X(pa_threaded_mainloop *, pa_threaded_mainloop_new, (void)) \
    X(int, pa_threaded_mainloop_start, (pa_threaded_mainloop *m)) \
    X(void, pa_threaded_mainloop_stop, (pa_threaded_mainloop *m)) \
    X(void, pa_threaded_mainloop_free, (pa_threaded_mainloop *m)) \
    X(void, pa_threaded_mainloop_lock, (pa_threaded_mainloop *m)) \
    X(void, pa_threaded_mainloop_unlock, (pa_threaded_mainloop *m)) \
    X(void, pa_threaded_mainloop_wait, (pa_threaded_mainloop *m)) \
    X(void, pa_threaded_mainloop_signal, (pa_threaded_mainloop *m, int wait_for_accept)) \
    X(pa_mainloop_api *, pa_threaded_mainloop_get_api, (pa_threaded_mainloop *m)) \
    X(pa_context *, pa_context_new, (pa_mainloop_api *api, const char *name)) \
    X(void, pa_context_set_state_callback, (pa_context *c, pa_context_notify_cb_t cb, void *userdata)) \
    X(int, pa_context_connect, (pa_context *c, const char *server, pa_context_flags_t flags, const pa_spawn_api *api)) \
    X(pa_context_state_t, pa_context_get_state, (const pa_context *c)) \
    X(int, pa_context_errno, (const pa_context *c)) \
    X(void, pa_context_disconnect, (pa_context *c)) \
    X(void, pa_context_unref, (pa_context *c)) \
    X(pa_operation *, pa_context_get_server_info, (pa_context *c, pa_server_info_cb_t cb, void *userdata)) \
    X(pa_operation *, pa_context_set_sink_input_volume, (pa_context *c, uint32_t idx, const pa_cvolume *volume, \
      pa_context_success_cb_t cb, void *userdata)) \
    X(pa_operation *, pa_context_set_sink_input_mute, (pa_context *c, uint32_t idx, int mute, \
      pa_context_success_cb_t cb, void *userdata)) \
    X(const char *, pa_strerror, (int error)) \
    X(pa_operation_state_t, pa_operation_get_state, (const pa_operation *o)) \
    X(void, pa_operation_unref, (pa_operation *o)) \
    X(pa_cvolume *, pa_cvolume_set, (pa_cvolume *a, unsigned channels, pa_volume_t v)) \
    X(pa_channel_map *, pa_channel_map_init_extend, (pa_channel_map *m, unsigned channels, pa_channel_map_def_t def)) \
    X(pa_stream *, pa_stream_new, (pa_context *c, const char *name, const pa_sample_spec *ss, const pa_channel_map *map)) \
    X(void, pa_stream_set_state_callback, (pa_stream *s, pa_stream_notify_cb_t cb, void *userdata)) \
    X(void, pa_stream_set_write_callback, (pa_stream *s, pa_stream_request_cb_t cb, void *userdata)) \
    X(void, pa_stream_set_underflow_callback, (pa_stream *s, pa_stream_notify_cb_t cb, void *userdata)) \
    X(int, pa_stream_connect_playback, (pa_stream *s, const char *dev, const pa_buffer_attr *attr, \
      pa_stream_flags_t flags, const pa_cvolume *volume, pa_stream *sync_stream)) \
    X(pa_stream_state_t, pa_stream_get_state, (const pa_stream *s)) \
    X(size_t, pa_stream_writable_size, (const pa_stream *s)) \
    X(int, pa_stream_write, (pa_stream *s, const void *data, size_t nbytes, pa_free_cb_t free_cb, int64_t offset, \
      pa_seek_mode_t seek)) \
    X(pa_operation *, pa_stream_cork, (pa_stream *s, int b, pa_stream_success_cb_t cb, void *userdata)) \
    X(pa_operation *, pa_stream_drain, (pa_stream *s, pa_stream_success_cb_t cb, void *userdata)) \
    X(int, pa_stream_get_time, (pa_stream *s, pa_usec_t *r_usec)) \
    X(const pa_timing_info *, pa_stream_get_timing_info, (pa_stream *s)) \
    X(pa_operation *, pa_stream_update_timing_info, (pa_stream *s, pa_stream_success_cb_t cb, void *userdata)) \
    X(uint32_t, pa_stream_get_index, (const pa_stream *s)) \
    X(int, pa_stream_disconnect, (pa_stream *s)) \
    X(void, pa_stream_unref, (pa_stream *s))

typedef struct {
#define PD_PULSE_FIELD(type, name, parameters) type (*name) parameters;
    PD_PULSE_FUNCTIONS(PD_PULSE_FIELD)
#undef PD_PULSE_FIELD
} pd_pulse_functions;

struct pd_pulse {
    pd_pulse_functions pa;
    void *library;
    pa_threaded_mainloop *loop;
    pa_context *context;
    pa_stream *stream;
    int interrupted;
    int draining;
    int corked;
    int updatingTiming;
    uint64_t underruns;
    int volumePercent;
    int muted;
    int serverKnown;
    char server[128];
};

static void pd_say(char *why, size_t whyLength, const char *text, const char *detail) {
    if (why != NULL && whyLength > 0) snprintf(why, whyLength, "%s%s%s", text, detail ? ": " : "", detail ? detail : "");
}

static const char *pd_pulse_load(pd_pulse_functions *table, void **library) {
    *library = dlopen("libpulse.so.0", RTLD_NOW | RTLD_LOCAL);
    if (*library == NULL) return "libpulse.so.0 cannot be loaded (install libpulse0)";
#define PD_PULSE_LOOKUP(type, name, parameters) \
    if ((table->name = (type (*) parameters)dlsym(*library, #name)) == NULL) return "libpulse.so.0 lacks " #name;
    PD_PULSE_FUNCTIONS(PD_PULSE_LOOKUP)
#undef PD_PULSE_LOOKUP
    return NULL;
}

// Callbacks: on the main loop's thread, with its lock held; each wakes the waiting caller.
static void pd_on_context_state(pa_context *context, void *userdata) {
    (void)context;
    pd_pulse *pulse = userdata;
    pulse->pa.pa_threaded_mainloop_signal(pulse->loop, 0);
}

static void pd_on_server_info(pa_context *context, const pa_server_info *info, void *userdata) {
    (void)context;
    pd_pulse *pulse = userdata;
    if (info != NULL) {
        snprintf(pulse->server, sizeof pulse->server, "%s %s", info->server_name ? info->server_name : "unknown",
                 info->server_version ? info->server_version : "");
    }
    pulse->serverKnown = 1;
    pulse->pa.pa_threaded_mainloop_signal(pulse->loop, 0);
}

static void pd_on_stream_signal(pa_stream *stream, void *userdata) {
    (void)stream;
    pd_pulse *pulse = userdata;
    pulse->pa.pa_threaded_mainloop_signal(pulse->loop, 0);
}

static void pd_on_writable(pa_stream *stream, size_t bytes, void *userdata) {
    (void)bytes;
    pd_on_stream_signal(stream, userdata);
}

static void pd_on_underflow(pa_stream *stream, void *userdata) {
    (void)stream;
    pd_pulse *pulse = userdata;
    if (!pulse->draining) pulse->underruns += 1;
}

static void pd_on_timing(pa_stream *stream, int success, void *userdata) {
    (void)stream;
    (void)success;
    pd_pulse *pulse = userdata;
    pulse->updatingTiming = 0;
}

static void pd_on_done(pa_stream *stream, int success, void *userdata) {
    (void)success;
    pd_on_stream_signal(stream, userdata);
}

/// Waits (lock held) until `operation` completes, then lets it go.
static void pd_wait_for(pd_pulse *pulse, pa_operation *operation) {
    if (operation == NULL) return;
    while (pulse->pa.pa_operation_get_state(operation) == PA_OPERATION_RUNNING)
        pulse->pa.pa_threaded_mainloop_wait(pulse->loop);
    pulse->pa.pa_operation_unref(operation);
}

static void pd_release(pd_pulse *pulse) {
    if (pulse->loop != NULL) pulse->pa.pa_threaded_mainloop_stop(pulse->loop);
    if (pulse->context != NULL) {
        pulse->pa.pa_context_disconnect(pulse->context);
        pulse->pa.pa_context_unref(pulse->context);
    }
    if (pulse->loop != NULL) pulse->pa.pa_threaded_mainloop_free(pulse->loop);
    // libpulse stays loaded: its threads' exit handlers may still point into it.
    free(pulse);
}

pd_pulse *pd_pulse_connect(const char *application, char *why, size_t whyLength) {
    pd_pulse *pulse = calloc(1, sizeof *pulse);
    if (pulse == NULL) {
        pd_say(why, whyLength, "out of memory", NULL);
        return NULL;
    }
    pulse->volumePercent = 100;
    const char *missing = pd_pulse_load(&pulse->pa, &pulse->library);
    if (missing != NULL) {
        pd_say(why, whyLength, missing, NULL);
        free(pulse);
        return NULL;
    }
    pulse->loop = pulse->pa.pa_threaded_mainloop_new();
    if (pulse->loop == NULL) {
        pd_say(why, whyLength, "libpulse cannot start its main loop", NULL);
        pd_release(pulse);
        return NULL;
    }
    pulse->context = pulse->pa.pa_context_new(pulse->pa.pa_threaded_mainloop_get_api(pulse->loop), application);
    if (pulse->context == NULL) {
        pd_say(why, whyLength, "libpulse cannot make a context", NULL);
        pd_release(pulse);
        return NULL;
    }
    pulse->pa.pa_context_set_state_callback(pulse->context, pd_on_context_state, pulse);
    if (pulse->pa.pa_context_connect(pulse->context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0) {
        pd_say(why, whyLength, "no sound server", pulse->pa.pa_strerror(pulse->pa.pa_context_errno(pulse->context)));
        pd_release(pulse);
        return NULL;
    }
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    if (pulse->pa.pa_threaded_mainloop_start(pulse->loop) < 0) {
        pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
        pd_say(why, whyLength, "libpulse cannot start its main loop", NULL);
        pd_release(pulse);
        return NULL;
    }
    pa_context_state_t state;
    while ((state = pulse->pa.pa_context_get_state(pulse->context)) != PA_CONTEXT_READY && PA_CONTEXT_IS_GOOD(state))
        pulse->pa.pa_threaded_mainloop_wait(pulse->loop);
    if (state != PA_CONTEXT_READY) {
        int error = pulse->pa.pa_context_errno(pulse->context);
        pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
        pd_say(why, whyLength, "no sound server", pulse->pa.pa_strerror(error));
        pd_release(pulse);
        return NULL;
    }
    snprintf(pulse->server, sizeof pulse->server, "unknown");
    pa_operation *info = pulse->pa.pa_context_get_server_info(pulse->context, pd_on_server_info, pulse);
    if (info != NULL) {
        while (!pulse->serverKnown && pulse->pa.pa_operation_get_state(info) == PA_OPERATION_RUNNING)
            pulse->pa.pa_threaded_mainloop_wait(pulse->loop);
        pulse->pa.pa_operation_unref(info);
    }
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
    return pulse;
}

const char *pd_pulse_server(const pd_pulse *pulse) { return pulse->server; }

/// Closes the stream; the lock is held.
static void pd_close_stream_locked(pd_pulse *pulse) {
    if (pulse->stream == NULL) return;
    pulse->pa.pa_stream_set_state_callback(pulse->stream, NULL, NULL);
    pulse->pa.pa_stream_set_write_callback(pulse->stream, NULL, NULL);
    pulse->pa.pa_stream_set_underflow_callback(pulse->stream, NULL, NULL);
    pulse->pa.pa_stream_disconnect(pulse->stream);
    pulse->pa.pa_stream_unref(pulse->stream);
    pulse->stream = NULL;
}

/// Applies the volume and mute to the open stream; the lock is held.
static void pd_apply_volume_locked(pd_pulse *pulse) {
    if (pulse->stream == NULL || pulse->pa.pa_stream_get_state(pulse->stream) != PA_STREAM_READY) return;
    uint32_t index = pulse->pa.pa_stream_get_index(pulse->stream);
    pa_cvolume volume;
    pulse->pa.pa_cvolume_set(&volume, 1, (pa_volume_t)((uint64_t)PA_VOLUME_NORM * (uint64_t)pulse->volumePercent / 100));
    pa_operation *setVolume = pulse->pa.pa_context_set_sink_input_volume(pulse->context, index, &volume, NULL, NULL);
    if (setVolume != NULL) pulse->pa.pa_operation_unref(setVolume);
    pa_operation *setMute = pulse->pa.pa_context_set_sink_input_mute(pulse->context, index, pulse->muted, NULL, NULL);
    if (setMute != NULL) pulse->pa.pa_operation_unref(setMute);
}

int pd_pulse_open_stream(pd_pulse *pulse, int rate, int channels, int bufferMilliseconds, char *why,
                         size_t whyLength) {
    pa_sample_spec spec = {.format = PA_SAMPLE_FLOAT32LE, .rate = (uint32_t)rate, .channels = (uint8_t)channels};
    pa_channel_map map;
    if (rate <= 0 || channels <= 0 || channels > PA_CHANNELS_MAX || bufferMilliseconds <= 0 ||
        pulse->pa.pa_channel_map_init_extend(&map, (unsigned)channels, PA_CHANNEL_MAP_WAVEEX) == NULL) {
        pd_say(why, whyLength, "the sound's layout cannot be played", NULL);
        return -1;
    }
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    pd_close_stream_locked(pulse);
    pulse->interrupted = 0;
    pulse->draining = 0;
    pulse->underruns = 0;
    pulse->corked = 1;
    pulse->updatingTiming = 0;
    pulse->stream = pulse->pa.pa_stream_new(pulse->context, "playback", &spec, &map);
    if (pulse->stream == NULL) {
        pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
        pd_say(why, whyLength, "the server refused the stream",
               pulse->pa.pa_strerror(pulse->pa.pa_context_errno(pulse->context)));
        return -1;
    }
    pulse->pa.pa_stream_set_state_callback(pulse->stream, pd_on_stream_signal, pulse);
    pulse->pa.pa_stream_set_write_callback(pulse->stream, pd_on_writable, pulse);
    pulse->pa.pa_stream_set_underflow_callback(pulse->stream, pd_on_underflow, pulse);
    uint32_t bytes = (uint32_t)((uint64_t)rate * (uint64_t)channels * sizeof(float) * (uint64_t)bufferMilliseconds / 1000);
    pa_buffer_attr attributes = {
        .maxlength = (uint32_t)-1, .tlength = bytes, .prebuf = (uint32_t)-1, .minreq = (uint32_t)-1,
        .fragsize = (uint32_t)-1};
    // Not PA_STREAM_INTERPOLATE_TIMING: libpulse 16's interpolated time runs
    // on while a stream that started corked is still corked.
    // pd_pulse_played_microseconds interpolates instead.
    pa_stream_flags_t flags = PA_STREAM_START_CORKED | PA_STREAM_AUTO_TIMING_UPDATE | PA_STREAM_ADJUST_LATENCY;
    if (pulse->pa.pa_stream_connect_playback(pulse->stream, NULL, &attributes, flags, NULL, NULL) < 0) {
        int error = pulse->pa.pa_context_errno(pulse->context);
        pd_close_stream_locked(pulse);
        pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
        pd_say(why, whyLength, "the server refused the stream", pulse->pa.pa_strerror(error));
        return -1;
    }
    pa_stream_state_t state;
    while ((state = pulse->pa.pa_stream_get_state(pulse->stream)) != PA_STREAM_READY && PA_STREAM_IS_GOOD(state))
        pulse->pa.pa_threaded_mainloop_wait(pulse->loop);
    if (state != PA_STREAM_READY) {
        int error = pulse->pa.pa_context_errno(pulse->context);
        pd_close_stream_locked(pulse);
        pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
        pd_say(why, whyLength, "the server refused the stream", pulse->pa.pa_strerror(error));
        return -1;
    }
    pd_apply_volume_locked(pulse);
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
    return 0;
}

int pd_pulse_write(pd_pulse *pulse, const void *data, size_t bytes) {
    const uint8_t *next = data;
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    while (bytes > 0) {
        if (pulse->stream == NULL || pulse->interrupted ||
            pulse->pa.pa_stream_get_state(pulse->stream) != PA_STREAM_READY) {
            pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
            return -1;
        }
        size_t room = pulse->pa.pa_stream_writable_size(pulse->stream);
        if (room == (size_t)-1) {
            pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
            return -1;
        }
        if (room == 0) {
            pulse->pa.pa_threaded_mainloop_wait(pulse->loop);
            continue;
        }
        size_t part = room < bytes ? room : bytes;
        if (pulse->pa.pa_stream_write(pulse->stream, next, part, NULL, 0, PA_SEEK_RELATIVE) < 0) {
            pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
            return -1;
        }
        next += part;
        bytes -= part;
    }
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
    return 0;
}

void pd_pulse_interrupt(pd_pulse *pulse) {
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    pulse->interrupted = 1;
    pulse->pa.pa_threaded_mainloop_signal(pulse->loop, 0);
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
}

void pd_pulse_cork(pd_pulse *pulse, int cork) {
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    if (pulse->stream != NULL && pulse->pa.pa_stream_get_state(pulse->stream) == PA_STREAM_READY) {
        pd_wait_for(pulse, pulse->pa.pa_stream_cork(pulse->stream, cork, pd_on_done, pulse));
        pulse->corked = cork != 0;
    }
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
}

void pd_pulse_drain(pd_pulse *pulse) {
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    pulse->draining = 1;
    if (pulse->stream != NULL && pulse->pa.pa_stream_get_state(pulse->stream) == PA_STREAM_READY) {
        pa_operation *drain = pulse->pa.pa_stream_drain(pulse->stream, NULL, NULL);
        if (drain != NULL) pulse->pa.pa_operation_unref(drain);
    }
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
}

/// Microseconds since the server measured `info`, on the same clock (gettimeofday, as libpulse's).
static int64_t pd_age(const pa_timing_info *info) {
    struct timeval now;
    gettimeofday(&now, NULL);
    return ((int64_t)now.tv_sec - (int64_t)info->timestamp.tv_sec) * 1000000 +
           ((int64_t)now.tv_usec - (int64_t)info->timestamp.tv_usec);
}

int64_t pd_pulse_played_microseconds(pd_pulse *pulse) {
    // The time at the server's last report, moved on by the report's age
    // while the stream plays (at most PD_MOST_INTERPOLATED: a report is
    // asked for at every reading, so a fresh one is never far away).
    enum { PD_MOST_INTERPOLATED = 100000 };
    pa_usec_t played = 0;
    int64_t result = -1;
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    if (pulse->stream != NULL && pulse->pa.pa_stream_get_state(pulse->stream) == PA_STREAM_READY &&
        pulse->pa.pa_stream_get_time(pulse->stream, &played) == 0 && played <= (pa_usec_t)INT64_MAX / 2) {
        result = (int64_t)played;
        const pa_timing_info *info = pulse->pa.pa_stream_get_timing_info(pulse->stream);
        if (info != NULL && info->playing && !pulse->corked) {
            int64_t age = pd_age(info);
            if (age > 0) result += age < PD_MOST_INTERPOLATED ? age : PD_MOST_INTERPOLATED;
        }
    }
    if (pulse->stream != NULL && !pulse->updatingTiming &&
        pulse->pa.pa_stream_get_state(pulse->stream) == PA_STREAM_READY) {
        pa_operation *update = pulse->pa.pa_stream_update_timing_info(pulse->stream, pd_on_timing, pulse);
        if (update != NULL) {
            pulse->updatingTiming = 1;
            pulse->pa.pa_operation_unref(update);
        }
    }
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
    return result;
}

uint64_t pd_pulse_underruns(const pd_pulse *pulse) {
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    uint64_t count = pulse->underruns;
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
    return count;
}

void pd_pulse_set_volume(pd_pulse *pulse, int percent, int muted) {
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    pulse->volumePercent = percent < 0 ? 0 : percent;
    pulse->muted = muted != 0;
    pd_apply_volume_locked(pulse);
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
}

void pd_pulse_close_stream(pd_pulse *pulse) {
    pulse->pa.pa_threaded_mainloop_lock(pulse->loop);
    pd_close_stream_locked(pulse);
    pulse->pa.pa_threaded_mainloop_unlock(pulse->loop);
}

void pd_pulse_close(pd_pulse *pulse) {
    pd_pulse_close_stream(pulse);
    pd_release(pulse);
}
