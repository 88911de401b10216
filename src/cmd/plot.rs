//! SVG plots of `tune` and `hist`: a few shared pieces.

/// The opening of an SVG document of `w` × `h` pixels on a white background (shared by the
/// plots of `tune` and `hist`).
pub fn svg_open(w: f64, h: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n"
    )
}
