//! The test runner's part of `io.murano.test.TestFixture`: its mocks.
//! The class's natives (`load`, the assertions) are a system class of the
//! no-cloud host (`host/system/test_fixture.rs`), as Murano registers
//! them with its system classes.

/// The test base class.
pub const FIXTURE_CLASS: &str = "io.murano.test.TestFixture";

/// Adds the mock functions (`inject`, `withOriginal`) and a new, empty
/// mock table (the runner's interceptor) to an engine being built, as the
/// runner's engines have them. The fixture's natives are the no-cloud
/// host's ([`crate::host::NoCloudHost::install`]).
pub fn install(builder: crate::EngineBuilder) -> crate::EngineBuilder {
    builder
        .method_mocks(std::sync::Arc::new(super::mock::MethodMocks::new()))
        .functions(super::mock::functions())
}
