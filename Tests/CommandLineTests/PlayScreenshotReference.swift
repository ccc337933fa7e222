@testable import TestSupport

/// The independent check of `play`'s window: a Python/numpy script (Debian's
/// /usr/bin/python3 with python3-numpy) that reads an `xwd` screenshot and
/// the `--save-format png` preview of the same frame (16-bit P3 with the
/// sRGB curve, decoded by the ffmpeg CLI), computes the expected sRGB window
/// itself — sRGB curve decoded, Display P3 → BT.709 from the primaries,
/// clipped to [0, 1], alpha over black in linear light, re-encoded — and
/// prints the fraction of pixels within 3/255 of it on every channel.
enum PlayScreenshotReference {
    static let script = #"""
        import struct, subprocess, sys
        import numpy as np

        def read_xwd(path):
            data = open(path, 'rb').read()
            h = struct.unpack('>25I', data[:100])
            header_size, version, fmt, width, height = h[0], h[1], h[2], h[4], h[5]
            byte_order, bits_per_pixel, bytes_per_line, ncolors = h[7], h[11], h[12], h[19]
            assert version == 7 and fmt == 2 and bits_per_pixel == 32, h
            start = header_size + ncolors * 12
            rows = np.frombuffer(data[start:start + bytes_per_line * height], np.uint8).reshape(height, bytes_per_line)
            px = rows[:, :width * 4].copy().view('<u4' if byte_order == 0 else '>u4')
            channels = []
            for mask in h[14:17]:  # red, green, blue masks
                shift = (mask & -mask).bit_length() - 1
                channels.append(((px & mask) >> shift).astype(np.float64))
            return np.stack(channels, axis=-1)

        def read_png16(path):
            size = subprocess.run(['ffprobe', '-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', path],
                                  check=True, capture_output=True, text=True).stdout.strip().split(',')
            raw = subprocess.run(['ffmpeg', '-nostdin', '-v', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgba64le', '-'],
                                 check=True, capture_output=True).stdout
            return np.frombuffer(raw, '<u2').reshape(int(size[1]), int(size[0]), 4).astype(np.float64) / 65535

        def rgb_to_xyz(primaries, white=(0.3127, 0.3290)):
            xyz = lambda x, y: np.array([x / y, 1.0, (1 - x - y) / y])
            P = np.stack([xyz(*p) for p in primaries], axis=1)
            return P * np.linalg.solve(P, xyz(*white))

        def srgb_decode(v): return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
        def srgb_encode(v): return np.where(v <= 0.0031308, 12.92 * v, 1.055 * np.power(v, 1 / 2.4) - 0.055)

        p3 = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
        bt709 = [(0.640, 0.330), (0.300, 0.600), (0.150, 0.060)]
        p3_to_709 = np.linalg.inv(rgb_to_xyz(bt709)) @ rgb_to_xyz(p3)

        png = read_png16(sys.argv[2])
        linear = np.clip(srgb_decode(png[..., :3]) @ p3_to_709.T, 0, 1) * png[..., 3:4]
        expected = srgb_encode(linear) * 255
        shot = read_xwd(sys.argv[1])
        if shot.shape != expected.shape:
            print(f"0 size {shot.shape} != {expected.shape}")
        else:
            print(np.all(np.abs(shot - expected) <= 3, axis=-1).mean())
        """#
}
