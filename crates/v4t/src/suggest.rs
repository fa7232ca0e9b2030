//! "Did you mean ...?": the closest known name to a misspelt one, for
//! warnings and notes about unknown keys, inputs, presets and operators.

/// The candidate closest to `name` by Damerau-Levenshtein distance (a
/// transposition counts as one edit), if it is close enough to be a likely
/// typo: one edit for names of up to four characters, two up to nine,
/// three beyond. Ties go to the earliest candidate; an exact match is not a
/// suggestion.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let len = name.chars().count();
    let limit = match len {
        0..=4 => 1,
        5..=9 => 2,
        _ => 3,
    };
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == name {
            return None;
        }
        // Cheap length filter first: the distance is at least the length difference.
        if candidate.chars().count().abs_diff(len) > limit {
            continue;
        }
        let d = strsim::damerau_levenshtein(name, candidate);
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// `; did you mean "x"?` for the closest candidate, or nothing.
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    closest(name, candidates)
        .map(|c| format!("; did you mean \"{c}\"?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_word() {
        assert_eq!(closest("evn", ["mode", "env"]), Some("env"));
        assert_eq!(closest("prdo", ["dev", "prod"]), Some("prod"));
        assert_eq!(
            closest("node_prunning", ["node_pruning", "pruning"]),
            Some("node_pruning")
        );
        assert_eq!(closest("condtions", ["conditions"]), Some("conditions"));
        assert_eq!(closest("equals", ["equal", "not"]), Some("equal"));
    }

    #[test]
    fn unrelated_names_and_exact_matches_suggest_nothing() {
        assert_eq!(closest("colour", ["type", "properties"]), None);
        assert_eq!(closest("env", ["env", "evn"]), None);
        assert_eq!(closest("x", std::iter::empty()), None);
        assert_eq!(did_you_mean("colour", ["type"]), "");
        assert_eq!(did_you_mean("tpye", ["type"]), "; did you mean \"type\"?");
    }
}
