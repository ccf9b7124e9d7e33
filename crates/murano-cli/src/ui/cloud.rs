//! The cloud of `murano ui --cloud`: the flavors, images, keypairs,
//! zones and networks the dashboard would ask OpenStack for, read from
//! a file.

use std::path::Path;
use std::sync::Arc;

use murano_ui::host::{
    AvailabilityZone, ExistingApp, Flavor, Host, Image, ImageInfo, Named, Network,
};
use murano_yaml::{Node, Value};

use super::wizard::load_yaml;
use super::Failure;

/// A cloud described by a file: nothing is fetched.
#[derive(Default)]
struct OfflineCloud {
    flavors: Vec<Flavor>,
    images: Vec<Image>,
    keypairs: Vec<String>,
    zones: Vec<AvailabilityZone>,
    networks: Vec<Network>,
    /// Applications of the target environment (`murano env add`).
    apps: Vec<ExistingApp>,
    /// Packages of the catalog (`murano env add`).
    packages: Vec<String>,
}

fn text(node: Option<&Node>) -> String {
    node.map(|n| n.value.python_str()).unwrap_or_default()
}

fn number(node: Option<&Node>) -> i64 {
    text(node).parse().unwrap_or(0)
}

fn items<'a>(doc: &'a Node, key: &str) -> &'a [Node] {
    match doc.value.get(key).map(|n| &n.value) {
        Some(Value::Seq(items)) => items,
        _ => &[],
    }
}

impl OfflineCloud {
    fn from_node(doc: &Node) -> OfflineCloud {
        OfflineCloud {
            flavors: items(doc, "flavors")
                .iter()
                .map(|f| Flavor {
                    id: text(f.value.get("id").or(f.value.get("name"))),
                    name: text(f.value.get("name")),
                    ram: number(f.value.get("ram")),
                    vcpus: number(f.value.get("vcpus")),
                    disk: number(f.value.get("disk")),
                })
                .collect(),
            images: items(doc, "images")
                .iter()
                .map(|i| Image {
                    id: text(i.value.get("id").or(i.value.get("name"))),
                    name: text(i.value.get("name")),
                    status: "active".into(),
                    snapshot: false,
                    info: i.value.get("type").map(|t| ImageInfo {
                        title: Some(text(i.value.get("name"))),
                        image_type: Some(t.value.python_str()),
                    }),
                })
                .collect(),
            keypairs: items(doc, "keypairs")
                .iter()
                .map(|k| k.value.python_str())
                .collect(),
            zones: items(doc, "zones")
                .iter()
                .map(|z| AvailabilityZone {
                    name: z.value.python_str(),
                    available: true,
                })
                .collect(),
            networks: items(doc, "networks")
                .iter()
                .map(|n| Network {
                    id: text(n.value.get("id").or(n.value.get("name"))),
                    name: text(n.value.get("name")),
                    external: false,
                    subnets: Vec::new(),
                })
                .collect(),
            ..OfflineCloud::default()
        }
    }
}

impl Host for OfflineCloud {
    fn region(&self) -> String {
        "RegionOne".into()
    }
    fn flavors(&self) -> Vec<Flavor> {
        self.flavors.clone()
    }
    fn images(&self) -> Vec<Image> {
        self.images.clone()
    }
    fn keypairs(&self) -> Vec<String> {
        self.keypairs.clone()
    }
    fn availability_zones(&self) -> Vec<AvailabilityZone> {
        self.zones.clone()
    }
    fn networks(&self) -> Vec<Network> {
        self.networks.clone()
    }
    fn environments(&self) -> Vec<String> {
        Vec::new()
    }
    fn security_groups(&self) -> Vec<String> {
        Vec::new()
    }
    fn volumes(&self) -> Vec<Named> {
        Vec::new()
    }
    fn volume_snapshots(&self) -> Vec<Named> {
        Vec::new()
    }
    fn dns_zones(&self) -> Vec<String> {
        Vec::new()
    }
    fn package_exists(&self, fqn: &str) -> bool {
        self.packages.iter().any(|p| p == fqn)
    }
    fn environment_services(&self, environment_id: Option<&str>) -> Vec<ExistingApp> {
        match environment_id {
            Some(_) => self.apps.clone(),
            None => Vec::new(),
        }
    }
    fn encrypt_data(&self, _data: &str) -> Result<String, String> {
        Err("no secret store offline".into())
    }
    fn call_static_action(&self, _body: &serde_json::Value) -> Result<serde_json::Value, String> {
        Err("no Murano API offline".into())
    }
}

/// The cloud of `--cloud` (read afresh each call), or an empty one.
pub(crate) fn load_cloud(path: Option<&Path>) -> Result<Arc<dyn Host + Send + Sync>, Failure> {
    Ok(Arc::new(match path {
        Some(path) => OfflineCloud::from_node(&load_yaml(path)?),
        None => OfflineCloud::default(),
    }))
}

/// The cloud of `--cloud` (or an empty one) as seen from an environment
/// with the applications `apps`, over a catalog of `packages`.
pub(crate) fn load_cloud_for(
    path: Option<&Path>,
    apps: Vec<ExistingApp>,
    packages: Vec<String>,
) -> Result<Arc<dyn Host + Send + Sync>, Failure> {
    let mut cloud = match path {
        Some(path) => OfflineCloud::from_node(&load_yaml(path)?),
        None => OfflineCloud::default(),
    };
    cloud.apps = apps;
    cloud.packages = packages;
    Ok(Arc::new(cloud))
}
