// Files compiled into the binary, by path relative to the project root: the API models, the schema
// migrations, the default capacity configuration and the dashboard page. The definition is
// generated at build time (cmake/Embed.cmake), so this header is the one declaration.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace smemu {

const std::map<std::string, std::string_view>& EmbeddedFiles();

}  // namespace smemu
