"""Stand-in for Huawei's npu_bridge (see migrator/prove/side_process/standins/README.md)."""
