//! HTML stripping (`--strip-html`): tags become spaces, common entities are decoded.

/// Replaces HTML tags by a space and decodes entities, writing into `out`.
///
/// A tag starts at `<` followed by a letter, `/`, `!` or `?` and ends at the next `>`; a lone
/// `<` (as in `a < b`) is kept. Decoded: `&amp; &lt; &gt; &quot; &apos; &nbsp;` and numeric
/// references `&#NN;` / `&#xHH;`; unknown entities are kept as written.
pub(crate) fn strip_html_into(input: &str, out: &mut String) {
    out.clear();
    let bytes = input.as_bytes();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => {
                let next = bytes.get(i + 1).copied().unwrap_or(b' ');
                if (next.is_ascii_alphabetic() || matches!(next, b'/' | b'!' | b'?'))
                    && let Some(end) = memchr::memchr(b'>', &bytes[i..])
                {
                    out.push_str(&input[copied..i]);
                    out.push(' ');
                    i += end + 1;
                    copied = i;
                    continue;
                }
                i += 1;
            }
            b'&' => {
                if let Some((decoded, len)) = decode_entity(&input[i..]) {
                    out.push_str(&input[copied..i]);
                    out.push(decoded);
                    i += len;
                    copied = i;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(&input[copied..]);
}

/// Decodes an entity at the start of `s` (which begins with `&`): the character and the
/// number of bytes consumed.
fn decode_entity(s: &str) -> Option<(char, usize)> {
    let semi = s.as_bytes().iter().take(12).position(|&b| b == b';')?;
    let name = &s[1..semi];
    let c = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        _ => {
            let digits = name.strip_prefix('#')?;
            let code = if let Some(hex) = digits.strip_prefix(['x', 'X']) {
                u32::from_str_radix(hex, 16).ok()?
            } else {
                digits.parse::<u32>().ok()?
            };
            char::from_u32(code)?
        }
    };
    Some((c, semi + 1))
}

#[cfg(test)]
mod tests {
    use crate::text::normalize::{Normalized, Normalizer};

    fn norm(n: Normalizer, s: &str) -> String {
        let mut out = Normalized::default();
        n.normalize_into(s, &mut out);
        out.as_str().to_string()
    }

    #[test]
    fn html_is_stripped_and_entities_decoded() {
        let n = Normalizer {
            strip_html: true,
            ..Normalizer::default()
        };
        assert_eq!(
            norm(n, "<p>Fish &amp; Chips</p><br/>for&nbsp;&#163;5 &#x41;"),
            "fish & chips for £5 a"
        );
        assert_eq!(
            norm(n, "a < b and &unknown; stays"),
            "a < b and &unknown; stays"
        );
        assert_eq!(norm(n, "unclosed <b tag"), "unclosed <b tag");
    }
}
