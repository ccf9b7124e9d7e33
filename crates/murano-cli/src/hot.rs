//! `murano hot`: make a Heat.HOT package from a Heat template, or
//! (`murano hot validate`) check a template as Heat itself would.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use murano_packages::source::FileMap;
use murano_packages::PluginRegistry;
use murano_yaml::{load_manifest, LoadOptions};

/// Make a Heat.HOT package from a HOT template: the manifest (as
/// `murano package-create --template` writes it), the template, and
/// optional HotFiles and HotEnvironments.
///
/// Examples:
///
///   murano hot stack.yaml -o stack.zip
///
///   murano hot stack.yaml -o out/ --files files/ --environments envs/
///
/// The package is loaded back before it is written, so a template Murano
/// cannot translate is refused here.
///
///   murano hot validate stack.yaml [--params values.yaml] [--format json]
///
/// checks the template as Heat 27 would (see `murano hot validate --help`).
#[derive(Args)]
#[command(
    verbatim_doc_comment,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub(crate) struct HotArgs {
    #[command(subcommand)]
    action: Option<HotAction>,
    /// The Heat template.
    #[arg(required = true)]
    template: Option<PathBuf>,
    /// Where to write: a .zip file or a directory.
    #[arg(short, long, value_name = "OUT", required = true)]
    output: Option<PathBuf>,
    /// FullName (default io.murano.apps.generated.<CamelCasedFileName>).
    #[arg(long)]
    full_name: Option<String>,
    /// Display name (default: the full name's last part).
    #[arg(long)]
    name: Option<String>,
    /// Files the template refers to (become Resources/HotFiles/).
    #[arg(long, value_name = "DIR")]
    files: Option<PathBuf>,
    /// Environment files (become Resources/HotEnvironments/).
    #[arg(long, value_name = "DIR")]
    environments: Option<PathBuf>,
}

fn camel(stem: &str) -> String {
    stem.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
                .collect::<String>()
        })
        .collect()
}

fn add_dir(files: &mut FileMap, dir: &Path, prefix: &str) -> Result<(), String> {
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)
            .map_err(|e| format!("{}: {e}", d.display()))?
            .flatten()
        {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.is_file() {
                let rel = p
                    .strip_prefix(dir)
                    .map_err(|e| e.to_string())?
                    .to_string_lossy()
                    .replace('\\', "/");
                let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
                files
                    .insert(&format!("{prefix}/{rel}"), bytes)
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

#[derive(clap::Subcommand)]
enum HotAction {
    Validate(crate::hot_validate::ValidateArgs),
}

fn build(args: &HotArgs, template_path: &Path) -> Result<FileMap, String> {
    let template =
        std::fs::read(template_path).map_err(|e| format!("{}: {e}", template_path.display()))?;
    let text = String::from_utf8(template.clone())
        .map_err(|e| format!("{}: {e}", template_path.display()))?;
    let doc = load_manifest(&text, &LoadOptions::default())
        .map_err(|e| format!("{}: {e}", template_path.display()))?;
    let description = doc
        .as_ref()
        .and_then(|d| d.value.get("description"))
        .map(|d| d.value.python_str())
        .unwrap_or_default();
    let stem = template_path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("Template");
    let full_name = args
        .full_name
        .clone()
        .unwrap_or_else(|| format!("io.murano.apps.generated.{}", camel(stem)));
    let name = args.name.clone().unwrap_or_else(|| {
        full_name
            .rsplit('.')
            .next()
            .unwrap_or(&full_name)
            .to_owned()
    });
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let manifest = format!(
        "Format: Heat.HOT/1.0\nType: Application\nFullName: {}\nName: {}\nDescription: {}\nAuthor: ''\nTags: []\n",
        quote(&full_name),
        quote(&name),
        quote(description.trim())
    );
    let mut files = FileMap::new();
    files
        .insert("manifest.yaml", manifest.into_bytes())
        .map_err(|e| e.to_string())?;
    files
        .insert("template.yaml", template)
        .map_err(|e| e.to_string())?;
    if let Some(dir) = &args.files {
        add_dir(&mut files, dir, "Resources/HotFiles")?;
    }
    if let Some(dir) = &args.environments {
        add_dir(&mut files, dir, "Resources/HotEnvironments")?;
    }
    // Load it back: Murano must be able to translate it.
    let package = PluginRegistry::with_builtins()
        .load(files.clone())
        .map_err(|e| e.to_string())?;
    package
        .get_class(package.full_name())
        .map_err(|e| e.to_string())?;
    package.ui().map_err(|e| e.to_string())?;
    Ok(files)
}

fn write(files: &FileMap, output: &Path) -> Result<(), String> {
    use murano_packages::source::PackageSource;
    let is_zip = output.extension().is_some_and(|e| e == "zip");
    if is_zip {
        let file =
            std::fs::File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
        let mut zip = zip::ZipWriter::new(file);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for path in files.paths() {
            zip.start_file(path, options).map_err(|e| e.to_string())?;
            zip.write_all(files.read(path).unwrap_or_default())
                .map_err(|e| e.to_string())?;
        }
        zip.finish().map_err(|e| e.to_string())?;
    } else {
        for path in files.paths() {
            let target = output.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            std::fs::write(&target, files.read(path).unwrap_or_default())
                .map_err(|e| format!("{}: {e}", target.display()))?;
        }
    }
    Ok(())
}

pub(crate) fn run(args: &HotArgs) -> ExitCode {
    if let Some(HotAction::Validate(v)) = &args.action {
        return crate::hot_validate::run(v);
    }
    let (Some(template), Some(output)) = (&args.template, &args.output) else {
        eprintln!("murano: a template and --output are required");
        return ExitCode::from(2);
    };
    match build(args, template).and_then(|files| write(&files, output)) {
        Ok(()) => {
            eprintln!("wrote {}", output.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("murano: {e}");
            ExitCode::from(1)
        }
    }
}
