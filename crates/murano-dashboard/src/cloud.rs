//! The cloud the forms list (flavors, images, keypairs, zones, networks)
//! and, per wizard, the environment's applications and the catalog's
//! packages: murano-ui's `Host` as the dashboard sees it. Nothing is
//! fetched: the default is the example cloud of `examples/ui/cloud.yaml`.

use murano_ui::host::{
    AvailabilityZone, ExistingApp, Flavor, Host, Image, ImageInfo, Named, Network,
};

/// Cloud resources the forms offer.
#[derive(Debug, Clone)]
pub struct CloudResources {
    /// Flavors.
    pub flavors: Vec<Flavor>,
    /// Images (with Murano's image metadata).
    pub images: Vec<Image>,
    /// Keypair names.
    pub keypairs: Vec<String>,
    /// Availability zones.
    pub zones: Vec<AvailabilityZone>,
    /// Networks.
    pub networks: Vec<Network>,
}

impl Default for CloudResources {
    fn default() -> Self {
        let flavor = |name: &str, ram, disk| Flavor {
            id: name.into(),
            name: name.into(),
            ram,
            vcpus: 1,
            disk,
        };
        let image = |id: &str, name: &str, ty: &str| Image {
            id: id.into(),
            name: name.into(),
            status: "active".into(),
            snapshot: false,
            info: Some(ImageInfo {
                title: Some(name.into()),
                image_type: Some(ty.into()),
            }),
        };
        CloudResources {
            flavors: vec![flavor("m1.tiny", 512, 1), flavor("m1.small", 2048, 20)],
            images: vec![
                image("img-ubuntu", "ubuntu-22.04", "linux"),
                image("img-windows", "windows-2019", "windows"),
            ],
            keypairs: vec!["default".into()],
            zones: vec![AvailabilityZone {
                name: "nova".into(),
                available: true,
            }],
            networks: vec![Network {
                id: "net-1".into(),
                name: "private".into(),
                external: false,
                subnets: Vec::new(),
            }],
        }
    }
}

/// The host of one wizard: the cloud, the target environment's
/// applications and the catalog's package names.
#[derive(Debug, Clone)]
pub struct WizardHost {
    /// The cloud.
    pub cloud: CloudResources,
    /// Applications of the environment (of the user's working session).
    pub apps: Vec<ExistingApp>,
    /// Fully qualified names of the packages the user may see.
    pub packages: Vec<String>,
}

impl Host for WizardHost {
    fn region(&self) -> String {
        "RegionOne".into()
    }
    fn flavors(&self) -> Vec<Flavor> {
        self.cloud.flavors.clone()
    }
    fn images(&self) -> Vec<Image> {
        self.cloud.images.clone()
    }
    fn keypairs(&self) -> Vec<String> {
        self.cloud.keypairs.clone()
    }
    fn availability_zones(&self) -> Vec<AvailabilityZone> {
        self.cloud.zones.clone()
    }
    fn networks(&self) -> Vec<Network> {
        self.cloud.networks.clone()
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
        Err("static actions are not called from forms offline".into())
    }
}
