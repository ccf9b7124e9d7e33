//! Static checks of whole packages (being written).
