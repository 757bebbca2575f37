#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    castle_fuzz::after_moves(data);
});
