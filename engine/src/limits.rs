//! The memory the system lets this process have: the smallest of the physical memory, the
//! memory cgroup's limit (a container's, a systemd unit's) and the address-space limit
//! (`ulimit -v`), each read where Linux keeps it. `--max-memory`'s default is half of it.

use std::path::{Path, PathBuf};

/// A limit on the process' memory and where it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    /// Bytes.
    pub bytes: u64,
    /// What sets it, for messages: "the physical memory", "the memory cgroup's limit", …
    pub source: &'static str,
}

/// Virtual memory a run maps beyond what it holds (code, thread stacks, the allocator's
/// reserved ranges): under `ulimit -v`, only what is left is counted as memory.
const ADDRESS_SPACE_OVERHEAD: u64 = 160 << 20;

/// The tightest of the limits that can be read (`None`: none can, as off Linux).
pub fn memory_limit() -> Option<MemoryLimit> {
    let mut limits = Vec::new();
    if let Some(bytes) = physical_memory() {
        limits.push(MemoryLimit {
            bytes,
            source: "the physical memory",
        });
    }
    if let Some(bytes) = cgroup_limit(Path::new("/proc/self/cgroup"), Path::new("/sys/fs/cgroup")) {
        limits.push(MemoryLimit {
            bytes,
            source: "the memory cgroup's limit",
        });
    }
    if let Some(bytes) = address_space_limit() {
        limits.push(MemoryLimit {
            bytes: bytes.saturating_sub(ADDRESS_SPACE_OVERHEAD).max(bytes / 4),
            source: "the address-space limit (ulimit -v) less what a run maps unused",
        });
    }
    limits.into_iter().min_by_key(|l| l.bytes)
}

/// This process' peak resident memory in bytes (`VmHWM`: since it started this program, not
/// counting the parent it was forked from, as `getrusage` would).
pub(crate) fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The memory this process can still take before a limit refuses it, and that limit: the
/// address-space limit less the mapped size (`VmSize`), or the physical memory's or the
/// cgroup's limit less the resident size (`VmRSS`), whichever is closest. For programs that
/// hold memory of their own besides the engine's (the Python module checks it before each
/// slice of a batch, so that running out is an exception rather than an abort).
pub fn headroom() -> Option<(u64, MemoryLimit)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    };
    let (rss, mapped) = (field("VmRSS:")?, field("VmSize:")?);
    let mut room = Vec::new();
    if let Some(bytes) = physical_memory() {
        room.push((bytes.saturating_sub(rss), bytes, "the physical memory"));
    }
    if let Some(bytes) = cgroup_limit(Path::new("/proc/self/cgroup"), Path::new("/sys/fs/cgroup")) {
        room.push((
            bytes.saturating_sub(rss),
            bytes,
            "the memory cgroup's limit",
        ));
    }
    if let Some(bytes) = address_space_limit() {
        room.push((
            bytes.saturating_sub(mapped),
            bytes,
            "the address-space limit (ulimit -v)",
        ));
    }
    let (left, bytes, source) = room.into_iter().min_by_key(|r| r.0)?;
    Some((left, MemoryLimit { bytes, source }))
}

fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// `RLIMIT_AS`, when set.
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into `limit`, which lives through the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0 {
        return None;
    }
    (limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// The smallest memory limit of the process' cgroup and its ancestors, from `cgroup_file`
/// (`/proc/self/cgroup`) and the hierarchy mounted at `root`: v2's `memory.max` on the
/// unified path (`0::/…`), v1's `memory.limit_in_bytes` on the memory controller's path.
/// Inside a container the path may name the host's view; the container's own root then
/// holds its limit, so the root is read too.
pub(crate) fn cgroup_limit(cgroup_file: &Path, root: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(cgroup_file).ok()?;
    let mut found: Option<u64> = None;
    let mut keep = |bytes: Option<u64>| {
        if let Some(b) = bytes {
            found = Some(found.map_or(b, |f| f.min(b)));
        }
    };
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (dir, file) = if controllers.is_empty() {
            (root.to_path_buf(), "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), "memory.limit_in_bytes")
        } else {
            continue;
        };
        for place in ancestors(&dir, path) {
            keep(read_limit(&place.join(file)));
        }
    }
    found
}

/// `dir` joined with `path` and each of its parents, up to `dir` itself.
fn ancestors(dir: &Path, path: &str) -> Vec<PathBuf> {
    let mut places = vec![dir.to_path_buf()];
    let mut at = dir.to_path_buf();
    for part in path.split('/').filter(|p| !p.is_empty() && *p != "..") {
        at.push(part);
        places.push(at.clone());
    }
    places
}

/// A limit file's bytes: `max` (v2) and v1's "no limit" (a number near 2^63) are none.
fn read_limit(file: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let bytes: u64 = text.trim().parse().ok()?;
    (bytes < 1 << 60).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> PathBuf {
        let root = std::env::temp_dir().join(format!(
            "neardup-cgroup-{}-{}",
            std::process::id(),
            files.len()
        ));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        root
    }

    #[test]
    fn reads_v2_the_smallest_on_the_path() {
        let root = tree(&[
            ("proc", "0::/system.slice/job.service\n"),
            ("fs/memory.max", "max\n"),
            ("fs/system.slice/memory.max", "1073741824\n"),
            ("fs/system.slice/job.service/memory.max", "268435456\n"),
        ]);
        let limit = cgroup_limit(&root.join("proc"), &root.join("fs"));
        assert_eq!(limit, Some(256 << 20));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn reads_v1_and_ignores_no_limit() {
        let root = tree(&[
            ("proc", "12:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n"),
            ("fs/memory/memory.limit_in_bytes", "9223372036854771712\n"),
            ("fs/memory/docker/abc/memory.limit_in_bytes", "536870912\n"),
        ]);
        let limit = cgroup_limit(&root.join("proc"), &root.join("fs"));
        assert_eq!(limit, Some(512 << 20));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn no_limit_is_none() {
        let root = tree(&[("proc", "0::/\n"), ("fs/memory.max", "max\n")]);
        assert_eq!(cgroup_limit(&root.join("proc"), &root.join("fs")), None);
        std::fs::remove_dir_all(root).unwrap();
    }
}
