//! A throwaway PostgreSQL server for the backend's tests: `initdb` in a
//! temporary folder, `pg_ctl` on 127.0.0.1 with a free port, stopped (and
//! its files removed) when dropped. The binaries are Debian's `postgresql`
//! package's (`/usr/lib/postgresql/N/bin`) or any on the `PATH`; without
//! them [`Postgres::start`] gives `None` and the test says it is skipped.
//! PostgreSQL refuses to run as root, so under root the server runs as the
//! `postgres` user (the package creates it) through `runuser`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A PostgreSQL server of a test's own.
pub struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    user: Option<&'static str>,
}

impl Postgres {
    /// Starts a server, or gives `None` (with a message) when no
    /// PostgreSQL binaries are installed.
    pub fn start(test: &str) -> Option<Postgres> {
        let Some(bin) = binaries() else {
            super::needs::skip(
                test,
                "MEND_REQUIRE_POSTGRES",
                "no PostgreSQL binaries (install Debian's postgresql package)",
            );
            return None;
        };
        let user = is_root().then_some("postgres");
        let dir = tempfile::Builder::new()
            .prefix("mend-pg-")
            .tempdir()
            .expect("a temporary folder");
        let port = free_port();
        let server = Postgres {
            dir,
            bin,
            port,
            user,
        };
        if user.is_some() {
            run(Command::new("chmod").arg("755").arg(server.dir.path()));
            run(Command::new("chown")
                .arg("-R")
                .arg("postgres")
                .arg(server.dir.path()));
        }
        let data = server.data();
        server.pg(
            "initdb",
            &[
                "-D",
                &data,
                "-U",
                "mend",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--locale=C",
            ],
        );
        server.pg_ctl_start();
        Some(server)
    }

    /// The connection string.
    pub fn url(&self) -> String {
        format!("postgres://mend@127.0.0.1:{}/postgres", self.port)
    }

    /// The rows `sql` gives, each as its columns joined by `|` (`psql -At`).
    pub fn query(&self, sql: &str) -> Vec<String> {
        let out = Command::new(self.bin.join("psql"))
            .args(["-At", "-d", &self.url(), "-c", sql])
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "psql: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Stops the server at once, as a crash would.
    pub fn kill(&self) {
        let data = self.data();
        self.pg("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"]);
    }

    /// Starts the server again, on the same port and data.
    pub fn restart(&self) {
        self.pg_ctl_start();
    }

    fn pg_ctl_start(&self) {
        let data = self.data();
        let log = format!("{data}/server.log");
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -k {} -c fsync=off -c max_connections=200",
            self.port,
            self.dir.path().display()
        );
        self.pg(
            "pg_ctl",
            &["-D", &data, "-l", &log, "-o", &options, "-w", "start"],
        );
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn pg(&self, program: &str, args: &[&str]) {
        let program = self.bin.join(program);
        let mut command = match self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        command.args(args).current_dir(self.dir.path());
        run(&mut command);
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.data();
        let program = self.bin.join("pg_ctl");
        let mut command = match self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        let _ = command
            .args(["-D", &data, "-m", "immediate", "stop"])
            .output();
    }
}

/// Where `initdb` and `pg_ctl` are: Debian's newest, else the `PATH`'s.
fn binaries() -> Option<PathBuf> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists() && bin.join("pg_ctl").exists())
        .collect();
    versions.sort_by_key(|p| {
        p.parent()
            .and_then(Path::file_name)
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    if let Some(newest) = versions.pop() {
        return Some(newest);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .find(|dir| dir.join("initdb").exists() && dir.join("pg_ctl").exists())
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

fn run(command: &mut Command) -> Output {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}
