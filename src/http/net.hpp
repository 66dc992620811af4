// Namespace aliases for Boost.Asio and Boost.Beast, declared here and nowhere else.
#pragma once

// clang-format off
// Boost 1.74 Asio uses std::exchange without including <utility> (fixed in later Boost), so
// <utility> must come first.
#include <utility>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
// clang-format on

namespace smemu::http {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;
}  // namespace smemu::http
