//! The backend's password: where it is read from, and how it is kept out of
//! every message.
//!
//! A connection string on the command line is readable by every user of
//! the machine (`/proc/PID/cmdline`), so the password may instead come
//! from where libpq reads it: `PGPASSWORD`, then the password file
//! (`PGPASSFILE`, else `~/.pgpass`), whose lines are
//! `host:port:database:user:password` with `*` for any value and `\` to
//! escape `:` and `\`. As libpq does, a password file that others may read
//! is ignored, with a warning.
//!
//! [`redact`] is the one way a connection string is shown. It works on the
//! text, not on a parse of it, so that a string that does not parse (a bad
//! port, several hosts, a quote left open) is redacted all the same: the
//! user part of a URL's authority after its `:`, any `password=` query
//! parameter, and the value of any `password` key of a key=value string,
//! quoted or not.
//!
//! ## What it refuses
//!
//! A password file that others may read (ignored with a warning, as libpq
//! does) and any message that would show a password: every connection string
//! shown goes through [`redact`].

use std::path::PathBuf;

use tokio_postgres::Config;
use tokio_postgres::config::Host;

/// What stands for a password in every message.
const HIDDEN: &str = "***";

/// `text`, a connection string in URL or key=value form, with every
/// password in it replaced by `***`.
pub fn redact(text: &str) -> String {
    let lower = text.trim_start().to_ascii_lowercase();
    if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
        redact_url(text)
    } else {
        redact_key_values(text)
    }
}

/// Gives `config` a password from `PGPASSWORD` or the password file when
/// the connection string has none.
pub fn fill_password(config: &mut Config) {
    if config.get_password().is_some() {
        return;
    }
    if let Ok(password) = std::env::var("PGPASSWORD") {
        config.password(password);
        return;
    }
    let Some(path) = password_file() else { return };
    let Ok(text) = read_private(&path) else {
        return;
    };
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or_default().to_owned();
    let database = config.get_dbname().unwrap_or(&user).to_owned();
    if let Some(password) = pgpass_lookup(&text, &host, port, &database, &user) {
        config.password(password);
    }
}

/// The password file's path: `PGPASSFILE`, else `~/.pgpass`.
fn password_file() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PGPASSFILE") {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".pgpass"))
}

/// Reads the password file, refusing one that others may read.
fn read_private(path: &PathBuf) -> std::io::Result<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)?.permissions().mode();
        if mode & 0o077 != 0 {
            tracing::warn!(path = %path.display(), "the password file may be read by others (chmod 0600 it); it is ignored");
            return Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        }
    }
    std::fs::read_to_string(path)
}

/// The password of the first line of a password file that matches.
pub fn pgpass_lookup(
    text: &str,
    host: &str,
    port: u16,
    database: &str,
    user: &str,
) -> Option<String> {
    let port = port.to_string();
    let wanted = [host, port.as_str(), database, user];
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .map(pgpass_fields)
        .find(|fields| {
            fields.len() == 5
                && fields
                    .iter()
                    .zip(wanted)
                    .all(|(field, value)| field == "*" || field == value)
        })
        .and_then(|mut fields| fields.pop())
}

/// A password file line's fields: split on `:`, with `\` escaping the
/// next character.
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next()
                    && let Some(last) = fields.last_mut()
                {
                    last.push(next);
                }
            }
            ':' => fields.push(String::new()),
            c => {
                if let Some(last) = fields.last_mut() {
                    last.push(c);
                }
            }
        }
    }
    fields
}

/// A URL's password hidden: after the `:` of the user part (up to the last
/// `@` before the query), and any `password=` query parameter.
fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let (scheme, rest) = url.split_at(scheme_end);
    let before_query = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
    let mut out = scheme.to_owned();
    let after_user = match before_query.rfind('@') {
        Some(at) => {
            let user = &rest[..at];
            match user.find(':') {
                Some(colon) => {
                    out.push_str(&user[..=colon]);
                    out.push_str(HIDDEN);
                }
                None => out.push_str(user),
            }
            &rest[at..]
        }
        None => rest,
    };
    match after_user.split_once('?') {
        None => out.push_str(after_user),
        Some((place, query)) => {
            let (query, fragment) = query.split_at(query.find('#').unwrap_or(query.len()));
            out.push_str(place);
            out.push('?');
            let params: Vec<String> = query
                .split('&')
                .map(|param| match param.split_once('=') {
                    Some((key, _)) if key.eq_ignore_ascii_case("password") => {
                        format!("{key}={HIDDEN}")
                    }
                    _ => param.to_owned(),
                })
                .collect();
            out.push_str(&params.join("&"));
            out.push_str(fragment);
        }
    }
    out
}

/// A key=value string's `password` value hidden, quoted or not, with the
/// rest as it was.
fn redact_key_values(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let spaces = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..spaces]);
        rest = &rest[spaces..];
        let key_end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let key = &rest[..key_end];
        out.push_str(key);
        rest = &rest[key_end..];
        // The `=`, with the spaces libpq allows around it.
        let eq = rest.trim_start();
        let Some(after_eq) = eq.strip_prefix('=') else {
            continue;
        };
        out.push_str(&rest[..rest.len() - after_eq.len()]);
        let value_start = after_eq.len() - after_eq.trim_start().len();
        out.push_str(&after_eq[..value_start]);
        let value = &after_eq[value_start..];
        let value_len = key_value_len(value);
        if key.eq_ignore_ascii_case("password") {
            out.push_str(HIDDEN);
        } else {
            out.push_str(&value[..value_len]);
        }
        rest = &value[value_len..];
    }
    out
}

/// How many bytes a key=value string's value takes: a quoted one up to its
/// closing quote (or the end, if it has none), `\` escaping; a bare one up
/// to white space.
fn key_value_len(value: &str) -> usize {
    let mut chars = value.char_indices();
    if value.starts_with('\'') {
        chars.next();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '\'' => return i + 1,
                _ => {}
            }
        }
        return value.len();
    }
    value.find(char::is_whitespace).unwrap_or(value.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: &str) {
        let shown = redact(text);
        assert_eq!(shown, expected, "{text}");
        assert!(!shown.contains("secret"), "{shown}");
    }

    #[test]
    fn no_form_of_connection_string_shows_its_password() {
        check(
            "postgres://mend:secret@127.0.0.1:5432/db",
            "postgres://mend:***@127.0.0.1:5432/db",
        );
        check(
            "postgresql://mend:secret@h1:5432,h2:5433/db",
            "postgresql://mend:***@h1:5432,h2:5433/db",
        );
        check(
            "postgres://mend@h/db?sslmode=disable&password=secret#x",
            "postgres://mend@h/db?sslmode=disable&password=***#x",
        );
        check(
            "postgres://mend:secret@h:notaport/db",
            "postgres://mend:***@h:notaport/db",
        );
        // A password with `@` and `/` left unencoded.
        check(
            "postgres://mend:se@cr/et-secret@h/db",
            "postgres://mend:***@h/db",
        );
        check(
            "host=h password=secret dbname=d",
            "host=h password=*** dbname=d",
        );
        check(
            "host=h password = 'a secret\\' too' dbname=d",
            "host=h password = *** dbname=d",
        );
        check("password='secret never closed", "password=***");
        check("postgres://h/db", "postgres://h/db");
        check("host=h user=mend", "host=h user=mend");
    }

    #[test]
    fn the_password_file_gives_the_first_line_that_matches() {
        let file = "# a comment\n\
                    other:5432:*:mend:not-this\n\
                    db.example:*:jobs:mend:pa\\:ss\\\\word\n\
                    *:*:*:*:fallback\n";
        assert_eq!(
            pgpass_lookup(file, "db.example", 5432, "jobs", "mend").as_deref(),
            Some("pa:ss\\word")
        );
        assert_eq!(
            pgpass_lookup(file, "elsewhere", 5433, "x", "y").as_deref(),
            Some("fallback")
        );
        assert_eq!(pgpass_lookup("a:b:c", "a", 1, "c", "d"), None);
    }
}
