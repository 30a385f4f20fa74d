// Test helper: another process writing the experience bank. Opens DIR for writing (holding its
// RocksDB LOCK), puts one tuple titled TITLE, prints "ready", and holds the bank until its stdin
// is closed (or reaches end of file). Exit 0, or 1 with the error on stderr.
#include <iostream>
#include <string>

#include "aopt/common/error.h"
#include "aopt/storage/experience_bank.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: bank_lock_holder DIR TITLE\n";
    return 2;
  }
  try {
    aopt::storage::experience_bank bank(argv[1]);
    aopt::vocab::experience e;
    e.title = argv[2];
    e.description = "put by bank_lock_holder";
    e.bottleneck = "mte2 bound";
    e.code_diff = "-a\n+b\n";
    bank.put(e);
    std::cout << "ready" << std::endl;
    std::string line;
    while (std::getline(std::cin, line)) {
    }
  } catch (const std::exception& ex) {
    std::cerr << ex.what() << "\n";
    return 1;
  }
  return 0;
}
