// The tier files of `data/tables/` and their cuts (`data/tables/tiers.csv`), written by
// `cargo run --release --example tiers` (docs/difficulty.md).

/// The published tier files.
pub static TIERS: &[Tiers] = &[
    Tiers {
        variant: Variant::BeleagueredCastle,
        numbering: Numbering::Castle,
        first: 1,
        last: 10000,
        tiers: include_bytes!("../data/tables/beleaguered-castle-castle-1-10000.tiers"),
        cuts: Cuts {
            hard: 0.09960937500000003,
            easy: 33.294270833333336,
        },
    },
    Tiers {
        variant: Variant::Castile,
        numbering: Numbering::Castle,
        first: 1,
        last: 10000,
        tiers: include_bytes!("../data/tables/castile-castle-1-10000.tiers"),
        cuts: Cuts {
            hard: 485.59975961538464,
            easy: 1187.7860576923076,
        },
    },
    Tiers {
        variant: Variant::Citadel,
        numbering: Numbering::Castle,
        first: 1,
        last: 10000,
        tiers: include_bytes!("../data/tables/citadel-castle-1-10000.tiers"),
        cuts: Cuts {
            hard: 165.2390625,
            easy: 849.4095394736842,
        },
    },
    Tiers {
        variant: Variant::Fortress,
        numbering: Numbering::Castle,
        first: 1,
        last: 10000,
        tiers: include_bytes!("../data/tables/fortress-castle-1-10000.tiers"),
        cuts: Cuts {
            hard: 447.5907451923077,
            easy: 1387.8912259615386,
        },
    },
    Tiers {
        variant: Variant::StreetsAndAlleys,
        numbering: Numbering::Castle,
        first: 1,
        last: 10000,
        tiers: include_bytes!("../data/tables/streets-and-alleys-castle-1-10000.tiers"),
        cuts: Cuts {
            hard: 0.06610576923076925,
            easy: 0.12139423076923077,
        },
    },
];
