//! Query parameters parsed as Java's JAX-RS parses them.

use std::collections::HashMap;

/// Java's `Boolean.valueOf`: only a case-insensitive `true` is true; absent is `default`.
pub(crate) fn boolean(params: &HashMap<String, String>, key: &str, default: bool) -> bool {
    params
        .get(key)
        .map_or(default, |v| v.eq_ignore_ascii_case("true"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_java() {
        let params: HashMap<String, String> =
            [("a", "True"), ("b", "TRUE"), ("c", "yes"), ("d", "")]
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect();
        assert!(boolean(&params, "a", false));
        assert!(boolean(&params, "b", false));
        assert!(!boolean(&params, "c", true));
        assert!(!boolean(&params, "d", true));
        assert!(boolean(&params, "missing", true));
    }
}
