import ProResOptions

/// `play`'s table: every option, its help, and the prose around them.
extension PlayCommand {
    static let spec = CommandSpec(
        name: "play", operands: "INPUT",
        summary: "show a clip in a window (X11, Vulkan) with its sound (PulseAudio, PipeWire), in sync",
        sections: [
            OptionSection(
                heading: "PLAYBACK",
                options: [
                    .input,
                    OptionSpec(
                        "--start", value: "POSITION",
                        help: "first frame (exact: ProRes is intra-only): a frame number, seconds (12.5s, "
                            + "00:00:12.5) or the source's time code (10:00:01:00)"),
                    OptionSpec(
                        "--frames", value: "LENGTH",
                        help: "play at most LENGTH from --start: a number of frames, or seconds (2s)"),
                    OptionSpec("--paused", help: "start paused on the first frame"),
                    OptionSpec(
                        "--loop", help: "play again from --start at the end (without it the player exits there)"),
                    OptionSpec(
                        "--rate", value: "FPS", range: .real(lower: 1, upper: 1000, lowerExcluded: false),
                        help: "the clock's rate instead of the clip's (1 to 1000: 25, 29.97 or 30000/1001)"),
                    OptionSpec("--fullscreen", help: "start fullscreen (EWMH; needs a window manager)"),
                    OptionSpec(
                        "--hud",
                        help: "start with the frame index, timecode, fps, dropped frames, decoder and colour path "
                            + "in the window title (key h)"),
                    OptionSpec(
                        "--audio", value: "play|none",
                        help: "play (default): the first sound track, through the sound server, and pace the frames "
                            + "by it; none: no sound, frames paced by the clock"),
                    OptionSpec("--mute", help: "start with the sound muted (key m); it still paces the frames"),
                    OptionSpec("--json", help: "print the end-of-play summary as JSON on stdout"),
                    .verbose("also say which colour path and surface format were chosen, and why"),
                ]),
            OptionSection(
                heading: "DECODER AND GPU",
                options: [
                    OptionSpec(
                        "--decoder", value: "cpu|ffmpeg|gpu|auto",
                        help:
                            "cpu: our CPU decoder; ffmpeg: FFmpeg's; gpu: our Vulkan compute decoder (its frames shown where they are); "
                            + "auto (default): gpu on a hardware GPU, else cpu"),
                    .device,
                    OptionSpec(
                        "--effect", value: "SPEC", repeatable: true,
                        help: "a GPU pass on every frame, as for decoding (see --help)"),
                    OptionSpec(
                        "--reference-white", value: "NITS", range: .real(lower: 1, upper: 10000, lowerExcluded: false),
                        help: "nits that map to 1.0 for PQ and HLG (default 203)"),
                    OptionSpec("--validate", help: "enable the Khronos validation layer"),
                ]),
        ],
        about: """
            Decodes INPUT as --vulkan does (either decoder), runs the effects and a last \
            GPU pass into a Vulkan swapchain on an X11 window titled \
            'prores-decode — NAME': the frame at 1:1 when it fits the screen, else scaled \
            to fit; resizable. The first sound track plays through the sound server \
            (PulseAudio's API, which PipeWire serves too) and each frame is shown when \
            the sound heard reaches its time. Without sound (no sound track, --audio \
            none, --rate other than the clip's, or no sound server: play says so in one \
            line) frames are paced by the clock at the clip's rate.
            """,
        epilogue: """
            KEYS
              space       pause / resume
              Right/Left  one frame forward / back (paused)
              Home        first frame
              f           fullscreen
              h           HUD in the window title
              m           mute / unmute the sound
              0, Up       louder (10 % steps, up to 150 %)
              9, Down     softer
              q, Esc      quit (exit 0); closing the window quits too

            Without a display (DISPLAY unset, no X server, or no Vulkan surface that can \
            present to it) play prints one line and exits 14.
            """)
}
