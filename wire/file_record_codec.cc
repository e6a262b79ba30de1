#include "wire/file_record_codec.h"

namespace ckpt {

void ToWire(const FileRecord& f, v1::FileRecord* w) {
  w->set_rank(f.rank);
  w->set_file_index(f.file_index);
  w->set_name(f.name);
  w->set_bytes(f.bytes);
  w->set_start_seconds(f.start);
  w->set_first_byte_seconds(f.first_byte);
  w->set_last_byte_seconds(f.last_byte);
  w->set_done_seconds(f.done);
  w->set_data_seconds(f.data);
  w->set_io_seconds(f.io);
  w->set_sync_seconds(f.sync);
  w->set_requests(f.requests);
  w->set_retries(f.retries);
}

FileRecord FromWire(const v1::FileRecord& w) {
  FileRecord f;
  f.rank = w.rank();
  f.file_index = w.file_index();
  f.name = w.name();
  f.bytes = w.bytes();
  f.start = w.start_seconds();
  f.first_byte = w.first_byte_seconds();
  f.last_byte = w.last_byte_seconds();
  f.done = w.done_seconds();
  f.data = w.data_seconds();
  f.io = w.io_seconds();
  f.sync = w.sync_seconds();
  f.requests = w.requests();
  f.retries = w.retries();
  return f;
}

}  // namespace ckpt
