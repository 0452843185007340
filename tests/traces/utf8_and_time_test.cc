#include <gtest/gtest.h>

#include "sim/base/errors.h"
#include "test_files.h"
#include "traces/civil_time.h"
#include "traces/csv_record_reader.h"
#include "traces/line_reader.h"
#include "traces/snapshot_diff.h"
#include "traces/utf8_text.h"

namespace efimsim {
namespace {

TEST(Utf8Text, CountsCodePointsLikePythonLen) {
  const std::string text = "aé☃😀";  // 1 + 2 + 3 + 4 bytes
  EXPECT_EQ(CountCodePoints(text), 4);
  EXPECT_EQ(ByteOffsetOfCodePoint(text, 2), 3u);
  EXPECT_EQ(ByteOffsetOfCodePoint(text, 4), 10u);
  EXPECT_TRUE(IsUtf8Boundary(text, 3));
  EXPECT_FALSE(IsUtf8Boundary(text, 2));
  EXPECT_TRUE(IsUtf8Boundary(text, 10));
  EXPECT_FALSE(IsUtf8Boundary(text, 11));
  EXPECT_TRUE(IsValidUtf8(text));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xe2\x98"));          // truncated
}

TEST(CivilTime, ParsesTheTraceTimestamps) {
  // date -u -d '2023-11-16 18:17:03' +%s == 1700158623
  EXPECT_EQ(ParseCivilTimeNs("2023-11-16 18:17:03.9799600"), 1700158623979960000);
  EXPECT_EQ(ParseCivilTimeNs("2019-12-20T13:47:36.596+03:00"), 1576838856596000000);
  EXPECT_EQ(ParseCivilTimeNs("2019-12-20T10:47:36.596Z"), 1576838856596000000);
  EXPECT_EQ(ParseCivilTimeNs("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(ParseCivilTimeNs("2020-02-29T00:00:00-0100"), 1582938000000000000);
  EXPECT_FALSE(ParseCivilTimeNs("2023-11-16"));
  EXPECT_FALSE(ParseCivilTimeNs("2023-13-01 00:00:00"));
  EXPECT_FALSE(ParseCivilTimeNs("2023-11-16 18:17:03."));
  EXPECT_FALSE(ParseCivilTimeNs("2023-11-16 18:17:03.1234567890"));
  EXPECT_FALSE(ParseCivilTimeNs("2023-11-16 18:17:03 junk"));
}

TEST(LineReader, StreamsLinesAndCountsThem) {
  const std::string dir = test::ScratchDir();
  const std::string path = test::WriteFile(dir, "l.txt", "a\r\n\nlast without newline");
  LineReader reader(path);
  std::string line;
  ASSERT_TRUE(reader.Next(line));
  EXPECT_EQ(line, "a\r");
  ASSERT_TRUE(reader.Next(line));
  EXPECT_EQ(line, "");
  ASSERT_TRUE(reader.Next(line));
  EXPECT_EQ(line, "last without newline");
  EXPECT_EQ(reader.line_number(), 3);
  EXPECT_FALSE(reader.Next(line));
  EXPECT_THROW(LineReader(dir + "/missing"), InputError);
}

TEST(LineReader, HandlesLinesAcrossItsBuffer) {
  const std::string dir = test::ScratchDir();
  std::string content;
  for (int i = 0; i < 3000; ++i) content += std::string(static_cast<size_t>(i % 97), 'x') + "\n";
  const std::string path = test::WriteFile(dir, "big.txt", content);
  LineReader reader(path, 200);
  std::string line;
  int count = 0;
  while (reader.Next(line)) {
    ASSERT_EQ(line.size(), static_cast<size_t>(count % 97));
    ++count;
  }
  EXPECT_EQ(count, 3000);
}

TEST(CsvRecordReader, ReadsQuotedMultiLineFields) {
  const std::string dir = test::ScratchDir();
  const std::string path = test::WriteFile(
      dir, "c.csv", "a,b,c\r\n1,\"x\n\"\"y\"\",z\n\",3\r\n\n4,,\"\"\n");
  CsvRecordReader reader(path);
  std::vector<std::string> fields;
  ASSERT_TRUE(reader.Next(fields));
  EXPECT_EQ(fields, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_TRUE(reader.Next(fields));
  EXPECT_EQ(fields, (std::vector<std::string>{"1", "x\n\"y\",z\n", "3"}));
  EXPECT_EQ(reader.record_line(), 2);
  ASSERT_TRUE(reader.Next(fields));
  EXPECT_EQ(fields, (std::vector<std::string>{"4", "", ""}));
  EXPECT_EQ(reader.record_line(), 6);
  EXPECT_FALSE(reader.Next(fields));

  const std::string bad = test::WriteFile(dir, "bad.csv", "a\n\"open\nnever closed\n");
  CsvRecordReader bad_reader(bad);
  ASSERT_TRUE(bad_reader.Next(fields));
  try {
    bad_reader.Next(fields);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("unterminated"), std::string::npos);
  }
}

TEST(SnapshotDiff, FindsTheOneChangedRange) {
  SnapshotDiff d = DiffSnapshots("int main() {\n}\n", "int main() {\n  x;\n}\n");
  EXPECT_EQ(d.offset_bytes, 13);
  EXPECT_EQ(d.deleted_bytes, 0);
  EXPECT_EQ(d.inserted, "  x;\n");
  d = DiffSnapshots("abcabc", "abc");
  EXPECT_EQ(d.offset_bytes, 3);
  EXPECT_EQ(d.deleted_bytes, 3);
  EXPECT_TRUE(d.inserted.empty());
  d = DiffSnapshots("same", "same");
  EXPECT_TRUE(d.empty());
  // Never splits a character: é (c3 a9) -> è (c3 a8) replaces the whole one.
  d = DiffSnapshots("aéb", "aèb");
  EXPECT_EQ(d.offset_bytes, 1);
  EXPECT_EQ(d.deleted_bytes, 2);
  EXPECT_EQ(d.inserted, "è");
}

}  // namespace
}  // namespace efimsim
