//! The ASCII fast paths of normalisation: byte classes, and single-spaced text copied (and
//! ASCII-lower-cased) whole, with SIMD where the CPU has it.

use super::Normalized;

/// Byte classes for ASCII: white space always separates; with `--strip-punct` so does every
/// other non-alphanumeric byte.
const fn separator_table(strip_punct: bool) -> [bool; 128] {
    let mut t = [false; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
            || (strip_punct && !c.is_ascii_alphanumeric());
        b += 1;
    }
    t
}

/// Separators without `--strip-punct`.
pub(super) const SEPARATORS: [bool; 128] = separator_table(false);

/// True when non-empty UTF-8 `bytes` has no ASCII white space but single spaces between
/// tokens: no tab, line feed, vertical tab, form feed or carriage return (bytes 9 to 13), no
/// space at either end and no two spaces in a row (these bytes never occur inside a multi-byte
/// character). Branch-free over the bytes, so it vectorises.
fn single_spaced(bytes: &[u8]) -> bool {
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    let controls = bytes
        .iter()
        .fold(0u8, |acc, &b| acc | u8::from(b.wrapping_sub(9) < 5));
    first != b' ' && last != b' ' && controls == 0 && memchr::memmem::find(bytes, b"  ").is_none()
}
/// Text already in normal form but for ASCII case (single-spaced tokens; see
/// [`Normalizer::keeps_non_ascii`]): copied and ASCII-lower-cased whole, the spaces found with
/// SIMD (memchr).
fn copy_single_spaced(bytes: &[u8], lowercase: bool, out: &mut Normalized) {
    out.text.extend_from_slice(bytes);
    if lowercase {
        out.text.make_ascii_lowercase();
    }
    let mut start = 0;
    for space in memchr::memchr_iter(b' ', bytes) {
        out.tokens.push((start, space));
        start = space + 1;
    }
    out.tokens.push((start, bytes.len()));
}

/// Copies single-spaced `bytes` (see [`single_spaced`]) into `out` as
/// [`copy_single_spaced`] does, and says whether any byte was non-ASCII; `None` when `bytes`
/// is not single-spaced (`out` then holds a partial copy). With AVX2 (detected at run time)
/// the checks, the lower-casing and the token boundaries take one pass over 32-byte blocks.
pub(super) fn scan_single_spaced(
    bytes: &[u8],
    lowercase: bool,
    out: &mut Normalized,
) -> Option<bool> {
    let (&first, &last) = (bytes.first()?, bytes.last()?);
    if first == b' ' || last == b' ' {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is available (checked above).
        return unsafe { scan_single_spaced_avx2(bytes, lowercase, out) };
    }
    if !single_spaced(bytes) {
        return None;
    }
    copy_single_spaced(bytes, lowercase, out);
    Some(!bytes.is_ascii())
}

/// [`scan_single_spaced`] on 32-byte blocks: a block's spaces, control bytes (9 to 13),
/// high bytes and upper-case letters are bit masks; a space right after a space (within the
/// block, or carried from the previous one) rejects the text. Ends are checked by the caller.
///
/// # Safety
/// The CPU must have avx2 (the caller checks with `is_x86_feature_detected!`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_single_spaced_avx2(
    bytes: &[u8],
    lowercase: bool,
    out: &mut Normalized,
) -> Option<bool> {
    use std::arch::x86_64::*;
    out.text.extend_from_slice(bytes);
    let text = out.text.as_mut_slice();
    let tokens = &mut out.tokens;
    let n = text.len();
    let space = _mm256_set1_epi8(b' ' as i8);
    let tab = _mm256_set1_epi8(9);
    let four = _mm256_set1_epi8(4);
    let upper_a = _mm256_set1_epi8(b'A' as i8);
    let twenty_five = _mm256_set1_epi8(25);
    let case_bit = _mm256_set1_epi8(0x20);
    let (mut high, mut carry, mut start, mut i) = (0u32, 0u32, 0usize, 0usize);
    // Room for every token (spaces are never adjacent here: at most n / 2 + 1 tokens) and
    // for the eight written ahead below.
    tokens.reserve(n / 2 + 9);
    while i + 32 <= n {
        // SAFETY: i + 32 <= n = text.len(); unaligned load.
        let v = unsafe { _mm256_loadu_si256(text.as_ptr().add(i).cast()) };
        let spaces = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, space)) as u32;
        // Unsigned v − 9 ≤ 4: bytes 9 to 13.
        let d = _mm256_sub_epi8(v, tab);
        let controls = _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(d, four), d));
        if controls != 0 || spaces & ((spaces << 1) | carry) != 0 {
            return None;
        }
        carry = spaces >> 31;
        high |= _mm256_movemask_epi8(v) as u32;
        if lowercase {
            // Unsigned v − 'A' ≤ 25: ASCII upper-case letters get the case bit.
            let u = _mm256_sub_epi8(v, upper_a);
            let upper = _mm256_cmpeq_epi8(_mm256_min_epu8(u, twenty_five), u);
            let lower = _mm256_or_si256(v, _mm256_and_si256(upper, case_bit));
            // SAFETY: as for the load.
            unsafe { _mm256_storeu_si256(text.as_mut_ptr().add(i).cast(), lower) };
        }
        if spaces != 0 {
            // A block has about five spaces: eight tokens are written whatever their number,
            // so that the loop has no exit that depends on the text (a mispredicted branch
            // per block); only the first `count` are kept.
            let count = spaces.count_ones() as usize;
            let len = tokens.len();
            let spare = tokens.spare_capacity_mut();
            let (mut m, mut from) = (spaces, start);
            for slot in &mut spare[..8] {
                let at = i + m.trailing_zeros() as usize;
                slot.write((from, at));
                from = at + 1;
                m &= m.wrapping_sub(1);
            }
            let mut k = 8;
            while m != 0 {
                let at = i + m.trailing_zeros() as usize;
                spare[k].write((from, at));
                from = at + 1;
                m &= m - 1;
                k += 1;
            }
            // SAFETY: the first `count` spare elements were written just above (one per
            // space, in order), and the capacity reserved before the loop covers them.
            unsafe { tokens.set_len(len + count) };
            start = i + 32 - spaces.leading_zeros() as usize;
        }
        i += 32;
    }
    let mut after_space = carry != 0;
    for (k, b) in text.iter_mut().enumerate().skip(i) {
        if b.wrapping_sub(9) < 5 || (*b == b' ' && after_space) {
            return None;
        }
        after_space = *b == b' ';
        if after_space {
            tokens.push((start, k));
            start = k + 1;
        }
        high |= u32::from(*b >> 7);
        if lowercase {
            b.make_ascii_lowercase();
        }
    }
    tokens.push((start, n));
    Some(high != 0)
}

/// Separators with `--strip-punct`.
pub(super) const SEPARATORS_PUNCT: [bool; 128] = separator_table(true);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// The one-pass scan against the check, the copy and `is_ascii`, on random texts long
    /// enough for several 32-byte blocks, with spaces (single and double, at block edges, and
    /// one every other byte), tabs, upper case and non-ASCII bytes.
    fn scan_equals_check_and_copy() {
        let mut next = crate::hash::test_rng(3u64);
        let alphabet: &[&str] = &["a", "Q", "z", "Z", "@", "[", "`", "{", "7", " ", "é", "\t"];
        for round in 0..20_000 {
            let len = next(140) as usize;
            let mut s = String::new();
            if round % 5 == 0 {
                // One-letter words (the first nine pieces: no space, tab or é): sixteen
                // spaces in a block, more than the eight tokens the scan writes ahead.
                let words: Vec<&str> = (0..len / 2 + 1)
                    .map(|_| alphabet[next(9) as usize])
                    .collect();
                s = words.join(" ");
            } else {
                for _ in 0..len {
                    // Spaces one in twelve; tabs and é only in some rounds.
                    let piece = match next(alphabet.len() as u64) as usize {
                        11 if round % 7 != 0 => "x",
                        10 if round % 3 != 0 => "y",
                        p => alphabet[p],
                    };
                    s.push_str(piece);
                }
            }
            for lowercase in [true, false] {
                let mut scanned = Normalized::default();
                let got = scan_single_spaced(s.as_bytes(), lowercase, &mut scanned);
                let expected = single_spaced(s.as_bytes()).then(|| !s.is_ascii());
                assert_eq!(got, expected, "{s:?}");
                if got.is_some() {
                    let mut copied = Normalized::default();
                    copy_single_spaced(s.as_bytes(), lowercase, &mut copied);
                    assert_eq!(scanned.text, copied.text, "{s:?}");
                    assert_eq!(scanned.tokens, copied.tokens, "{s:?}");
                }
            }
        }
    }

    #[test]
    fn single_spaced_means_one_space_between_tokens() {
        assert!(single_spaced(b"a b c"));
        assert!(!single_spaced(b"a  b") && !single_spaced(b" a") && !single_spaced(b"a\tb"));
        assert!(!single_spaced(b""));
    }
}
