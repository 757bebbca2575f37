#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    castle_fuzz::batch_resume(data);
});
