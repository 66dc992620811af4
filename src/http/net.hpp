// Namespace aliases for Boost.Asio and Boost.Beast, declared here and nowhere else.
#pragma once

// Boost 1.74 Asio uses std::exchange without including <utility> (fixed in later Boost).
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <utility>

namespace smemu::http {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;
}  // namespace smemu::http
