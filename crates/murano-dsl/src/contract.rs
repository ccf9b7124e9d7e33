//! MuranoPL contracts (being written).
