// A misbehaving child for the sandbox tests: `aopt_sandbox_child MODE`.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "loop") {
    volatile unsigned long x = 0;
    for (;;) x = x + 1;
  }
  if (mode == "segv") {
    volatile int* p = nullptr;
    *p = 1;
  }
  if (mode == "alloc") {  // allocate and touch without end
    std::vector<char*> blocks;
    for (;;) {
      char* b = new char[64 << 20];
      std::memset(b, 1, 64 << 20);
      blocks.push_back(b);
    }
  }
  if (mode == "spew") {  // much more output than the capture bound
    std::string line(1000, 'x');
    for (int i = 0; i < 5000; ++i) std::printf("%s\n", line.c_str());
    return 0;
  }
  if (mode == "exit3") {
    std::fprintf(stderr, "bad things\n");
    return 3;
  }
  if (mode == "grandchild") {  // leaves a sleeping grandchild that holds stdout
    if (fork() == 0) {
      sleep(100);
      _exit(0);
    }
    std::printf("parent done\n");
    return 0;
  }
  if (mode == "bigfile") {
    FILE* f = std::fopen("big.bin", "wb");
    std::vector<char> buf(1 << 20, 'a');
    for (int i = 0; i < 64; ++i) std::fwrite(buf.data(), 1, buf.size(), f);
    std::fclose(f);
    return 0;
  }
  if (mode == "pwd") {
    char buf[4096];
    std::printf("%s\n", getcwd(buf, sizeof buf));
    return 0;
  }
  std::printf("ok\n");
  return 0;
}
