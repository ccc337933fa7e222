#ifndef PRORES_DECODE_PULSE_OUTPUT_H
#define PRORES_DECODE_PULSE_OUTPUT_H
#include <stddef.h>
#include <stdint.h>

/// One connection to a sound server through libpulse's asynchronous API
/// (PulseAudio's own server, or PipeWire's pipewire-pulse): a threaded main
/// loop, a context, and at most one playback stream of interleaved 32-bit
/// float samples at a time. libpulse is opened with dlopen: the tool starts,
/// and `play` plays silently, where it is not installed.
typedef struct pd_pulse pd_pulse;

/// Connects to the server PULSE_SERVER or the session names (never
/// starting one). NULL when there is none, with the reason in `why`.
pd_pulse *pd_pulse_connect(const char *application, char *why, size_t whyLength);

/// The server's name and version ("pulseaudio 16.1"); valid until pd_pulse_close.
const char *pd_pulse_server(const pd_pulse *pulse);

/// Opens a corked playback stream (any previous one is closed first) whose
/// server buffer holds about `bufferMilliseconds`; 0 when it is ready to
/// take samples, else -1 with the reason in `why`.
int pd_pulse_open_stream(pd_pulse *pulse, int rate, int channels, int bufferMilliseconds, char *why,
                         size_t whyLength);

/// Writes every byte of `data`, waiting for room in the server's buffer.
/// 0 once written; -1 when the stream failed or pd_pulse_interrupt was called.
int pd_pulse_write(pd_pulse *pulse, const void *data, size_t bytes);

/// Releases a write waiting for room (and every later one) until the next stream opens.
void pd_pulse_interrupt(pd_pulse *pulse);

/// Stops (1) or resumes (0) the stream's playback at once, keeping what is buffered.
void pd_pulse_cork(pd_pulse *pulse, int cork);

/// No more samples: plays out what is buffered (underruns from here on are the end, not a fault).
void pd_pulse_drain(pd_pulse *pulse);

/// Microseconds of the stream played so far at the speaker (the server's
/// latency taken off, interpolated between its reports); -1 before it knows.
int64_t pd_pulse_played_microseconds(pd_pulse *pulse);

/// Times the server ran out of samples while playing, since the stream opened.
uint64_t pd_pulse_underruns(const pd_pulse *pulse);

/// Sets the stream's volume, in percent of the server's normal volume, and its mute.
void pd_pulse_set_volume(pd_pulse *pulse, int percent, int muted);

/// Closes the stream, if one is open.
void pd_pulse_close_stream(pd_pulse *pulse);

/// Closes the stream and the connection.
void pd_pulse_close(pd_pulse *pulse);

#endif
