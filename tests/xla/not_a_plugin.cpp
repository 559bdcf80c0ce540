extern "C" __attribute__((visibility("default"))) int tenferro_not_a_pjrt_plugin() { return 1; }
