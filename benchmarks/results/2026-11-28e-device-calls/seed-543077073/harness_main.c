int main(void) {
  static int out[1024], a[1024], res[64]; static long fb[64];
  for (int i = 0; i < 1024; i++) { out[i] = -1; a[i] = (i * 7) % 13; }
  for (int i = 0; i < 64; i++) res[i] = -1;
  for (WI_GR = 0; WI_GR < 2; WI_GR++) for (WI_L = 0; WI_L < 32; WI_L++) {
    WI_G = WI_GR * 32 + WI_L;
#ifdef USER
    lk543077073(out, a, 3, 5u, 1ul << 63, res);
#else
    lk543077073(out, a, 3, 5u, 1ul << 63, res, fb, 4096, 4096, 256);
#endif
  }
  printf("fb[0]=%ld res=", fb[0]); for (int i = 0; i < 64; i++) printf("%d ", res[i]); printf("\n");
  return 0;
}
