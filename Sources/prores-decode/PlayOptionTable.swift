import ProResOptions

/// `play`'s table: every option, its help, and the prose around them.
extension PlayCommand {
    /// `play`'s own options, and the shared ones it words in its own terms.
    enum Options {
        static let start = SharedOptions.start.explained(
            "first frame (exact: ProRes is intra-only): a frame number, seconds (12.5s, "
                + "00:00:12.5) or the source's time code (10:00:01:00)")
        static let frames = SharedOptions.frames.explained(
            "play at most LENGTH from --start: a number of frames, or seconds (2s)")
        static let paused = Flag("--paused", short: "start paused on the first frame")
        static let loop = Flag(
            "--loop", short: "play again from --start at the end",
            long: "play again from --start at the end (without it the player exits there)")
        static let rate = SharedOptions.rate.explained(
            "the clock's rate instead of the clip's (1 to 1000: 25, 29.97 or 30000/1001)")
        static let fullscreen = Flag(
            "--fullscreen", short: "start fullscreen",
            long: "start fullscreen (EWMH; needs a window manager)")
        static let hud = Flag(
            "--hud", short: "start with the HUD in the window title (key h)",
            long: "start with the frame index, timecode, fps, dropped frames, decoder and colour path "
                + "in the window title (key h)")
        static let json = SharedOptions.json.explained(
            "print the end-of-play summary as JSON on stdout", short: "print the end-of-play summary as JSON")
        static let verbose = SharedOptions.verbose.explained(
            "also say which colour path and surface format were chosen, and why")
        static let decoder = SharedOptions.decoder.explained(
            "cpu: our CPU decoder; ffmpeg: FFmpeg's; gpu: our Vulkan compute decoder (its frames shown where they are); "
                + "auto (default): gpu on a hardware GPU, else cpu")
        static let effect = SharedOptions.effect.explained("a GPU pass on every frame, as for decoding:")
        static let audio = Option<SoundChoice>(
            "--audio", short: "play (default) the first sound track, or none",
            long: "play (default): the first sound track, through the sound server, and pace the frames by it; "
                + "none: no sound, frames paced by the clock")
        static let mute = Flag(
            "--mute", short: "start with the sound muted (key m)",
            long: "start with the sound muted (key m); it still paces the frames")
    }

    /// `--audio`: whether the clip's sound plays.
    enum SoundChoice: String, CaseIterable {
        case play
        case none
    }

    static let spec = CommandSpec(
        name: "play", operands: "INPUT",
        summary: "show a clip in a window (X11, Vulkan) with its sound (PulseAudio, PipeWire), in sync",
        sections: [
            OptionSection(
                heading: "PLAYBACK",
                options: [
                    SharedOptions.input, Options.start, Options.frames, Options.paused, Options.loop, Options.rate,
                    Options.fullscreen, Options.hud, Options.audio, Options.mute, Options.json, Options.verbose,
                ]),
            OptionSection(
                heading: "DECODER AND GPU",
                options: [
                    Options.decoder, SharedOptions.device, Options.effect, SharedOptions.referenceWhite,
                    SharedOptions.validate,
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
