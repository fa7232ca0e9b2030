//! Where an import URL points (TOSCA 2.0 §6.8.2.2), before anything is read.
//!
//! A document lives in one of three places, a [`Place`]: a file of the
//! repository (the directory or CSAR being validated), a remote URL, or a
//! file of a folder on the profile path. A relative URL is resolved
//! against the importing document's place with the one path joiner of the
//! project, [`join_import`]: `..` above a closed repository (a CSAR, a
//! profile folder, a URL's host) stays at its root, as RFC 3986 resolves
//! URLs; above a directory on disk ([`v4t_source::Loader::bounded`] is
//! `false`) it is kept, for the loader to follow or refuse.

use v4t_source::{join_import, within_root};

/// Where a document is, or where an import points.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Place {
    /// A file of the repository (relative to its root, `/`-separated; may
    /// start with `../` when the repository is a directory on disk).
    Repo(String),
    /// A remote URL (read only through an import map).
    Url(String),
    /// A file of profile folder number `.0`.
    Folder(usize, String),
    /// A profile bundled with v4t.
    Bundled(&'static str),
}

/// `scheme` and the rest of a URL with a scheme (`https://..`, `file:..`).
fn split_scheme(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    // One letter is a Windows drive, not a scheme.
    if !first.is_ascii_alphabetic()
        || scheme.len() < 2
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    Some((scheme, rest))
}

/// Where import `url` (with the URL of the repository it names, if any)
/// points from a document at `from`. `bounded`: whether the repository is
/// closed (see the module documentation).
pub(crate) fn locate(
    from: &Place,
    url: &str,
    repository: Option<&str>,
    bounded: bool,
) -> Result<Place, String> {
    if url.is_empty() {
        return Err("empty import URL".to_string());
    }
    let relative = match (split_scheme(url), repository) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "`{url}` has a URL scheme, so it cannot be combined with `repository`"
            ))
        }
        (Some(("file", rest)), None) => file_path(url, rest)?,
        (Some(_), None) => return Ok(Place::Url(normalize_url(url))),
        (None, None) => url.to_string(),
        // A file of the named repository: relative to its root (§6.8.2.2).
        (None, Some(base)) => {
            let joined = format!(
                "{}/{}",
                base.trim_end_matches('/'),
                url.trim_start_matches('/')
            );
            match split_scheme(base) {
                Some(("file", rest)) => {
                    file_path(base, rest).map(|b| format!("{}/{}", b.trim_end_matches('/'), url))?
                }
                Some(_) => return Ok(Place::Url(normalize_url(&joined))),
                None => joined,
            }
        }
    };
    if relative.ends_with('/') {
        return Err(format!("`{url}` does not name a file"));
    }
    let place = match from {
        Place::Repo(importing) => {
            let path = in_tree(importing, &relative);
            Place::Repo(if bounded {
                within_root(&path).to_string()
            } else {
                path
            })
        }
        Place::Folder(i, importing) => {
            Place::Folder(*i, within_root(&in_tree(importing, &relative)).to_string())
        }
        Place::Url(importing) => {
            let (origin, path) = split_origin(importing);
            let joined = in_tree(path.trim_start_matches('/'), &relative);
            Place::Url(format!("{origin}/{}", within_root(&joined)))
        }
        Place::Bundled(_) => return Err("bundled profiles cannot import files".to_string()),
    };
    match &place {
        Place::Repo(p) | Place::Folder(_, p) if p.is_empty() || p == ".." || p.ends_with("/..") => {
            Err(format!("`{url}` does not name a file"))
        }
        _ => Ok(place),
    }
}

/// `relative` from a file at `importing` of a tree: a leading `/` starts at
/// the tree's root.
fn in_tree(importing: &str, relative: &str) -> String {
    match relative.strip_prefix('/') {
        Some(rooted) => within_root(&join_import(None, rooted)).to_string(),
        None => join_import(Some(importing), relative),
    }
}

/// The path of a `file:` URL (`file:x.yaml`, `file:///x.yaml`; a host
/// other than `localhost` is refused). It is read within the repository:
/// an absolute path starts at its root.
fn file_path(url: &str, rest: &str) -> Result<String, String> {
    match rest.strip_prefix("//") {
        Some(after) => {
            let (host, path) = after.split_at(after.find('/').unwrap_or(after.len()));
            if !host.is_empty() && host != "localhost" {
                return Err(format!("`{url}` names another host"));
            }
            Ok(path.to_string())
        }
        None => Ok(rest.to_string()),
    }
}

/// A URL's origin (`https://example.org`) and its path (`/a/b.yaml`).
fn split_origin(url: &str) -> (&str, &str) {
    let after = match url.find("://") {
        Some(i) => i + 3,
        None => url.find(':').map_or(0, |i| i + 1),
    };
    match url[after..].find('/') {
        Some(j) => url.split_at(after + j),
        None => (url, ""),
    }
}

/// A remote URL with `.` and `..` segments of its path resolved (`..`
/// stops at the host).
pub(crate) fn normalize_url(url: &str) -> String {
    let (origin, path) = split_origin(url);
    let path = within_root(&join_import(None, path.trim_start_matches('/'))).to_string();
    format!("{origin}/{path}")
}

/// Whether `url` starts with `prefix` at a segment boundary
/// (`https://x.org/a` covers `https://x.org/a/b.yaml`, not
/// `https://x.org/ab.yaml`); the rest of the URL, relative to the prefix.
pub(crate) fn strip_url_prefix<'u>(url: &'u str, prefix: &str) -> Option<&'u str> {
    let rest = url.strip_prefix(prefix)?;
    if prefix.ends_with('/') || rest.is_empty() || rest.starts_with('/') {
        Some(rest.trim_start_matches('/'))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(p: &str) -> Place {
        Place::Repo(p.to_string())
    }

    #[test]
    fn relative_urls_resolve_against_the_importing_file() {
        let at = |from: &str, url: &str, bounded: bool| locate(&repo(from), url, None, bounded);
        assert_eq!(
            at("a/b/main.yaml", "types.yaml", true),
            Ok(repo("a/b/types.yaml"))
        );
        assert_eq!(at("a/b/main.yaml", "../t.yaml", true), Ok(repo("a/t.yaml")));
        assert_eq!(at("a/b/main.yaml", "/t.yaml", true), Ok(repo("t.yaml")));
        assert_eq!(
            at("a/main.yaml", "file:x/t.yaml", true),
            Ok(repo("a/x/t.yaml"))
        );
        assert_eq!(
            at("a/main.yaml", "file:///t.yaml", true),
            Ok(repo("t.yaml"))
        );
        // In a closed repository `..` stops at the root; on disk it is kept.
        assert_eq!(at("main.yaml", "../../t.yaml", true), Ok(repo("t.yaml")));
        assert_eq!(
            at("main.yaml", "../types/t.yaml", false),
            Ok(repo("../types/t.yaml"))
        );
        assert_eq!(
            at("a/main.yaml", "../../t.yaml", false),
            Ok(repo("../t.yaml"))
        );
        assert!(at("main.yaml", "file://other/t.yaml", true).is_err());
        assert!(at("main.yaml", "types/", true).is_err());
        assert!(at("main.yaml", "..", true).is_err());
    }

    #[test]
    fn repositories_and_remote_urls() {
        let from = repo("a/main.yaml");
        assert_eq!(
            locate(&from, "t.yaml", Some("types/"), true),
            Ok(repo("a/types/t.yaml"))
        );
        assert!(locate(&from, "file:t.yaml", Some("r/"), true).is_err());
        assert_eq!(
            locate(&from, "https://x.org/a/./b/../t.yaml", None, true),
            Ok(Place::Url("https://x.org/a/t.yaml".into()))
        );
        assert_eq!(
            locate(&from, "/t/x.yml", Some("https://x.org/raw/master"), true),
            Ok(Place::Url("https://x.org/raw/master/t/x.yml".into()))
        );
        // Relative imports of a remote file stay remote.
        let remote = Place::Url("https://x.org/p/a/main.yaml".into());
        assert_eq!(
            locate(&remote, "../../../b.yaml", None, false),
            Ok(Place::Url("https://x.org/b.yaml".into()))
        );
        assert_eq!(
            strip_url_prefix("https://x.org/a/b.yaml", "https://x.org/a"),
            Some("b.yaml")
        );
        assert_eq!(
            strip_url_prefix("https://x.org/ab.yaml", "https://x.org/a"),
            None
        );
    }
}
