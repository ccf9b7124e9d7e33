//! Everything the dashboard gets from the cloud, and the sources of
//! randomness, behind traits a caller implements.
//!
//! ```
//! use murano_ui::host::{Entropy, SequentialEntropy};
//!
//! let mut e = SequentialEntropy::default();
//! assert_eq!(e.random_lowercase(), 'a');
//! assert_eq!(e.random_lowercase(), 'b');
//! assert_eq!(e.now_millis(), 1_500_000_000_000);
//! assert_eq!(e.uuid4().len(), 36);
//! ```

/// A flavor (Nova).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flavor {
    /// Flavor id.
    pub id: String,
    /// Flavor name.
    pub name: String,
    /// Memory in MB.
    pub ram: i64,
    /// Virtual CPUs.
    pub vcpus: i64,
    /// Disk in GB.
    pub disk: i64,
}

/// The `murano_image_info` metadata of an image, already parsed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImageInfo {
    /// `title`, if given.
    pub title: Option<String>,
    /// `type`, if given.
    pub image_type: Option<String>,
}

/// An image (Glance).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Image id.
    pub id: String,
    /// Image name.
    pub name: String,
    /// Status (`active`, `queued`, ...).
    pub status: String,
    /// `properties.image_type == "snapshot"`.
    pub snapshot: bool,
    /// Parsed `murano_image_info`; `None` when absent or not valid JSON.
    pub info: Option<ImageInfo>,
}

/// An availability zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AvailabilityZone {
    /// Zone name.
    pub name: String,
    /// Whether its state is available.
    pub available: bool,
}

/// A subnet of a network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subnet {
    /// Subnet id.
    pub id: String,
    /// CIDR.
    pub cidr: String,
    /// Name (may be empty).
    pub name: String,
}

/// A network (Neutron).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Network {
    /// Network id.
    pub id: String,
    /// Name.
    pub name: String,
    /// `router:external`.
    pub external: bool,
    /// Its subnets.
    pub subnets: Vec<Subnet>,
}

/// An id and a name (volumes, snapshots).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
}

/// An application already present in the target environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExistingApp {
    /// `?.id`.
    pub id: String,
    /// `?.type` (possibly with a `/version` suffix).
    pub type_name: String,
    /// `?.name`.
    pub name: String,
}

/// The cloud and the murano API as the dashboard sees them.
pub trait Host {
    /// The user's region (key of `resourceUsages`).
    fn region(&self) -> String;
    /// All flavors.
    fn flavors(&self) -> Vec<Flavor>;
    /// All images.
    fn images(&self) -> Vec<Image>;
    /// Keypair names.
    fn keypairs(&self) -> Vec<String>;
    /// Availability zones.
    fn availability_zones(&self) -> Vec<AvailabilityZone>;
    /// Networks of the project.
    fn networks(&self) -> Vec<Network>;
    /// Names of the user's murano environments.
    fn environments(&self) -> Vec<String>;
    /// Security group names.
    fn security_groups(&self) -> Vec<String>;
    /// Available volumes.
    fn volumes(&self) -> Vec<Named>;
    /// Available volume snapshots.
    fn volume_snapshots(&self) -> Vec<Named>;
    /// DNS zone names.
    fn dns_zones(&self) -> Vec<String>;
    /// Whether the catalog has a package with this FullName.
    fn package_exists(&self, fqn: &str) -> bool;
    /// Applications of the target environment (`None`: quick deploy).
    fn environment_services(&self, environment_id: Option<&str>) -> Vec<ExistingApp>;
    /// Stores a secret and returns its reference (`encryptData`).
    fn encrypt_data(&self, data: &str) -> Result<String, String>;
    /// Calls a static action (`ParametersSource`) with this body.
    fn call_static_action(&self, body: &serde_json::Value) -> Result<serde_json::Value, String>;
}

/// Randomness and the clock.
pub trait Entropy {
    /// A random letter `a`-`z`.
    fn random_lowercase(&mut self) -> char;
    /// The current Unix time in milliseconds.
    fn now_millis(&mut self) -> u64;
    /// A fresh UUID4 text (lowercase, 8-4-4-4-12).
    fn uuid4(&mut self) -> String;
}

/// Deterministic entropy: letters cycle `a..z` from `a`, the clock is
/// fixed at 1500000000000 ms and ids count up (the conformance convention).
#[derive(Debug, Clone, Default)]
pub struct SequentialEntropy {
    letters: u64,
    ids: u64,
}

impl Entropy for SequentialEntropy {
    fn random_lowercase(&mut self) -> char {
        let c = char::from(b'a' + (self.letters % 26) as u8);
        self.letters += 1;
        c
    }
    fn now_millis(&mut self) -> u64 {
        1_500_000_000_000
    }
    fn uuid4(&mut self) -> String {
        self.ids += 1;
        let n = self.ids;
        format!(
            "{:08x}-0000-4000-8000-{:012x}",
            (n >> 48) as u32,
            n & 0xffff_ffff_ffff
        )
    }
}

/// Entropy from the system clock and a xorshift generator seeded by it.
#[derive(Debug, Clone)]
pub struct SystemEntropy {
    state: u64,
}

impl Default for SystemEntropy {
    fn default() -> Self {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9_7F4A_7C15);
        SystemEntropy { state: seed | 1 }
    }
}

impl SystemEntropy {
    fn next(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state = x;
        x
    }
}

impl Entropy for SystemEntropy {
    fn random_lowercase(&mut self) -> char {
        char::from(b'a' + (self.next() % 26) as u8)
    }
    fn now_millis(&mut self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
    fn uuid4(&mut self) -> String {
        let a = self.next();
        let b = self.next();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:x}{:03x}-{:012x}",
            (a >> 32) as u32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            8 + (b >> 62),
            (b >> 48) & 0xfff,
            b & 0xffff_ffff_ffff
        )
    }
}
