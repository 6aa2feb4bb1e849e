//! FNV-1a, 64 bits: a hash that is the same in every process and on every
//! machine, unlike the standard library's randomly keyed one, so that a
//! model of hashed features trained twice on the same pages is the same
//! model, and one saved by a process means the same to the next.
//!
//! ## What it refuses
//!
//! It takes no key or seed, so the same bytes give the same hash everywhere,
//! and anyone can make two inputs collide: it is for hashing features, never
//! for integrity, secrets or keeping apart inputs an attacker chooses. It
//! never panics; its multiplications wrap.

/// An FNV-1a hasher over bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fnv64(u64);

const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0100_0000_01b3;

impl Fnv64 {
    /// A hasher that has seen nothing.
    pub(crate) fn new() -> Self {
        Self(OFFSET_BASIS)
    }

    /// The hasher after `bytes`.
    pub(crate) fn with(mut self, bytes: &[u8]) -> Self {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(PRIME);
        }
        self
    }

    /// The hash of what was seen.
    pub(crate) fn finish(self) -> u64 {
        self.0
    }
}

/// The hash of one byte string.
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    Fnv64::new().with(bytes).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_test_vectors() {
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(
            Fnv64::new().with(b"foo").with(b"bar").finish(),
            hash(b"foobar")
        );
    }
}
