//! How the `dd` engine runs on timely's runtime: worker threads per process, and the processes
//! of a cluster. Timely's own argument parsing is never used (its `-w`/`-n` flags would collide
//! with the harness's); the configuration is built here explicitly.

use std::path::{Path, PathBuf};

use timely::{CommunicationConfig, WorkerConfig};

/// The first port of the default addresses, as timely uses without a hostfile.
pub const DEFAULT_BASE_PORT: u16 = 2101;

/// Why a cluster description is unusable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Zero processes.
    #[error("the number of processes must be at least 1")]
    NoProcesses,
    /// `--process` names no process of the cluster.
    #[error("process index {process} is out of range: the cluster has {processes} process(es), numbered from 0")]
    ProcessOutOfRange {
        /// The index given.
        process: usize,
        /// The number of processes.
        processes: usize,
    },
    /// The hostfile could not be read.
    #[error("hostfile {}: {source}", path.display())]
    Hostfile {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The hostfile lists fewer addresses than processes.
    #[error("hostfile {} lists {found} address(es) but {needed} processes were asked for", path.display())]
    TooFewAddresses {
        /// The file.
        path: PathBuf,
        /// Non-empty lines found.
        found: usize,
        /// Processes asked for.
        needed: usize,
    },
}

/// The processes of a timely cluster and which one this is. A single process needs no
/// addresses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cluster {
    process: usize,
    /// `host:port` of every process, in process order; empty for a single process.
    addresses: Vec<String>,
}

impl Cluster {
    /// One process, no networking.
    pub fn single() -> Self {
        Cluster::default()
    }

    /// Process `process` of a cluster whose processes listen at `addresses` (`host:port`, in
    /// process order). With one address or none this is a single process.
    pub fn new(process: usize, addresses: Vec<String>) -> Result<Self, ConfigError> {
        let processes = addresses.len().max(1);
        if process >= processes {
            return Err(ConfigError::ProcessOutOfRange { process, processes });
        }
        let addresses = if addresses.len() > 1 {
            addresses
        } else {
            Vec::new()
        };
        Ok(Cluster { process, addresses })
    }

    /// From command-line flags, as timely's own `-n`, `-p`, `-h` mean them: `processes`
    /// processes, this one numbered `process`; addresses are the first `processes` non-empty
    /// lines of `hostfile`, or `localhost:2101`, `localhost:2102`, … without one. A hostfile is
    /// not read for a single process.
    pub fn from_flags(
        processes: usize,
        process: usize,
        hostfile: Option<&Path>,
    ) -> Result<Self, ConfigError> {
        if processes == 0 {
            return Err(ConfigError::NoProcesses);
        }
        if process >= processes {
            return Err(ConfigError::ProcessOutOfRange { process, processes });
        }
        if processes == 1 {
            return Ok(Cluster::single());
        }
        let addresses: Vec<String> = match hostfile {
            Some(path) => {
                let text =
                    std::fs::read_to_string(path).map_err(|source| ConfigError::Hostfile {
                        path: path.to_path_buf(),
                        source,
                    })?;
                let lines: Vec<String> = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .take(processes)
                    .map(String::from)
                    .collect();
                if lines.len() < processes {
                    return Err(ConfigError::TooFewAddresses {
                        path: path.to_path_buf(),
                        found: lines.len(),
                        needed: processes,
                    });
                }
                lines
            }
            None => (0..processes)
                .map(|i| format!("localhost:{}", usize::from(DEFAULT_BASE_PORT) + i))
                .collect(),
        };
        Cluster::new(process, addresses)
    }

    /// Number of processes (at least 1).
    pub fn processes(&self) -> usize {
        self.addresses.len().max(1)
    }

    /// This process's index, from 0.
    pub fn process(&self) -> usize {
        self.process
    }

    /// The processes' addresses; empty for a single process.
    pub fn addresses(&self) -> &[String] {
        &self.addresses
    }
}

/// Everything the `dd` engine needs to start timely: threads per process and the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DdConfig {
    workers: usize,
    cluster: Cluster,
    records: Records,
}

/// Which record type the dataflow uses (see [`crate::row`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Records {
    /// Fixed-width rows of codes when the program's records fit in 4 words and it has no
    /// aggregate, else general rows.
    #[default]
    Narrowest,
    /// General rows whatever the program (to measure what the fixed-width rows gain, and to
    /// check both paths against each other).
    General,
}

impl DdConfig {
    /// `workers` threads (at least one) in each process of `cluster`.
    pub fn new(workers: usize, cluster: Cluster) -> Self {
        DdConfig {
            workers: workers.max(1),
            cluster,
            records: Records::default(),
        }
    }

    /// The same configuration with the record type chosen by `records`.
    pub fn with_records(mut self, records: Records) -> Self {
        self.records = records;
        self
    }

    /// How the record type is chosen.
    pub fn records(&self) -> Records {
        self.records
    }

    /// `workers` threads (at least one) in a single process.
    pub fn threads(workers: usize) -> Self {
        DdConfig::new(workers, Cluster::single())
    }

    /// Worker threads per process.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Workers in the whole cluster.
    pub fn peers(&self) -> usize {
        self.workers * self.cluster.processes()
    }

    /// Timely's configuration: one thread, a process of threads, or a cluster over TCP.
    pub fn timely(&self) -> timely::Config {
        let communication = if self.cluster.processes() > 1 {
            CommunicationConfig::Cluster {
                threads: self.workers,
                process: self.cluster.process,
                addresses: self.cluster.addresses.clone(),
                report: false,
                zerocopy: false,
            }
        } else if self.workers > 1 {
            CommunicationConfig::Process(self.workers)
        } else {
            CommunicationConfig::Thread
        };
        timely::Config {
            communication,
            worker: WorkerConfig::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_timely_conventions() {
        let c = Cluster::from_flags(2, 1, None).expect("valid");
        assert_eq!(c.processes(), 2);
        assert_eq!(c.addresses()[1], "localhost:2102");
        assert!(matches!(
            Cluster::from_flags(2, 2, None),
            Err(ConfigError::ProcessOutOfRange { .. })
        ));
        assert_eq!(
            Cluster::from_flags(1, 0, Some(Path::new("/nonexistent"))).expect("ignored"),
            Cluster::single()
        );
        assert!(matches!(
            Cluster::from_flags(2, 0, Some(Path::new("/nonexistent/hosts"))),
            Err(ConfigError::Hostfile { .. })
        ));
        assert!(matches!(
            Cluster::from_flags(0, 0, None),
            Err(ConfigError::NoProcesses)
        ));
        assert_eq!(DdConfig::new(0, Cluster::single()).workers(), 1);
    }
}
