//! Small real PNG images for the site's posts: 16 × 16 pixels, RGB, drawn
//! from a seed so that two seeds give different bytes and one seed always
//! the same. Only what a valid PNG needs is written (IHDR, IDAT, IEND).

use std::io::Write;

use flate2::Crc;
use flate2::write::ZlibEncoder;

const SIDE: u32 = 16;

/// The PNG file drawn from `seed`.
pub fn png(seed: usize) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&SIDE.to_be_bytes());
    header.extend_from_slice(&SIDE.to_be_bytes());
    // Bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no
    // interlacing.
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &header);
    chunk(&mut out, b"IDAT", &compressed_pixels(seed));
    chunk(&mut out, b"IEND", &[]);
    out
}

/// The scanlines, each behind its filter byte (0: none), compressed.
fn compressed_pixels(seed: usize) -> Vec<u8> {
    let base = [
        (seed * 67 % 256) as u8,
        (seed * 131 % 256) as u8,
        (seed * 199 % 256) as u8,
    ];
    let mut raw = Vec::with_capacity(((SIDE * 3 + 1) * SIDE) as usize);
    for y in 0..SIDE {
        raw.push(0);
        for x in 0..SIDE {
            // A diagonal band over a flat colour; the seed's low bytes in the
            // first pixel keep every seed's bytes apart.
            let band = if (x + y) % 8 < 3 { 60 } else { 0 };
            let pixel = if x == 0 && y == 0 {
                [(seed & 0xff) as u8, (seed >> 8 & 0xff) as u8, 0]
            } else {
                base.map(|c| c.wrapping_add(band))
            };
            raw.extend_from_slice(&pixel);
        }
    }
    let mut encoder = ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&raw).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = Crc::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_be_bytes());
}
