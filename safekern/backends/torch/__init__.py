"""PyTorch: its synchronisation calls as safekern sync points, its CUDA graphs' replays marked
pending. safekern never imports torch: these hooks go in once the user has imported it."""
