<?php
// Router for PHP's built-in server in front of Debian's WordPress (/usr/share/wordpress):
// /wp-content/… comes from /var/lib/wordpress/wp-content (Debian's WP_CONTENT_DIR, where uploads
// land), existing files are served as they are, every other path goes to index.php so that the
// pretty permalinks and /wp-json/… (the REST API) work as they do behind Apache's rewrite rules.
$root = '/usr/share/wordpress';
$path = rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?? '/');
if (str_contains($path, '..')) {
    http_response_code(400);
    return true;
}
if (str_starts_with($path, '/wp-content/')) {
    $file = '/var/lib/wordpress' . $path;
    if (is_file($file) && !str_ends_with($file, '.php')) {
        header('Content-Type: ' . (mime_content_type($file) ?: 'application/octet-stream'));
        header('Content-Length: ' . filesize($file));
        readfile($file);
        return true;
    }
}
$file = $root . $path;
if (is_dir($file) && is_file(rtrim($file, '/') . '/index.php')) {
    $file = rtrim($file, '/') . '/index.php';
}
if (is_file($file)) {
    if (!str_ends_with($file, '.php')) {
        return false; // static file from the document root
    }
    $_SERVER['SCRIPT_FILENAME'] = $file;
    $_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = substr($file, strlen($root));
    chdir(dirname($file));
    require $file;
    return true;
}
$_SERVER['SCRIPT_FILENAME'] = $root . '/index.php';
$_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = '/index.php';
chdir($root);
require $root . '/index.php';
