//! The cloud of `murano ui --cloud`: the flavors, images, keypairs,
//! zones and networks the dashboard would ask OpenStack for, read from
//! a file into the dashboard's own types (`murano_dashboard::cloud`).

use std::path::Path;
use std::sync::Arc;

use murano_dashboard::cloud::{CloudResources, WizardHost};
use murano_ui::host::{AvailabilityZone, ExistingApp, Flavor, Host, Image, ImageInfo, Network};
use murano_yaml::{Node, Value};

use super::wizard::load_yaml;
use super::Failure;

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

/// The cloud resources a cloud file describes.
fn resources(doc: &Node) -> CloudResources {
    CloudResources {
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
    }
}

/// The cloud resources of `--cloud` (read afresh each call), or none.
pub(crate) fn load_resources(path: Option<&Path>) -> Result<CloudResources, Failure> {
    Ok(match path {
        Some(path) => resources(&load_yaml(path)?),
        None => CloudResources {
            flavors: Vec::new(),
            images: Vec::new(),
            keypairs: Vec::new(),
            zones: Vec::new(),
            networks: Vec::new(),
        },
    })
}

/// The cloud of `--cloud` (read afresh each call), or an empty one.
pub(crate) fn load_cloud(path: Option<&Path>) -> Result<Arc<dyn Host + Send + Sync>, Failure> {
    load_cloud_for(path, Vec::new(), Vec::new())
}

/// The cloud of `--cloud` (or an empty one) as seen from an environment
/// with the applications `apps`, over a catalog of `packages`: the
/// dashboard's wizard host over the file's resources.
pub(crate) fn load_cloud_for(
    path: Option<&Path>,
    apps: Vec<ExistingApp>,
    packages: Vec<String>,
) -> Result<Arc<dyn Host + Send + Sync>, Failure> {
    Ok(Arc::new(WizardHost {
        cloud: load_resources(path)?,
        apps,
        packages,
    }))
}
