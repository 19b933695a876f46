<?php
// Run by setup.sh with php-cli: installs the site (once), then (every run) a fresh application
// password for the admin and the test categories, and prints them as JSON.
// Usage: php install.php <host> <site-url> <username> <password> <email>
[, $host, $url, $user, $pass, $email] = $argv;
$_SERVER['HTTP_HOST'] = $host; // Debian's wp-config.php picks /etc/wordpress/config-<host>.php from it
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_NAME'] = $host;
define('WP_INSTALLING', true);
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';

if (!is_blog_installed()) {
    $r = wp_install('Tidings test site', $user, $email, false, '', wp_slash($pass));
    if (is_wp_error($r)) { fwrite(STDERR, $r->get_error_message() . "\n"); exit(1); }
}
// /wp-json/… and pretty post links need a permalink structure (the REST API lives at ?rest_route= otherwise).
global $wp_rewrite;
if (get_option('permalink_structure') !== '/%year%/%monthnum%/%postname%/') {
    $wp_rewrite->set_permalink_structure('/%year%/%monthnum%/%postname%/');
}
$wp_rewrite->flush_rules(false);

$admin = get_user_by('login', $user);
if (!$admin) { fwrite(STDERR, "no user $user\n"); exit(1); }
wp_set_password($pass, $admin->ID); // the login password is known, whatever a previous run set

// One application password named "tidings-real-test": the plain text is only known at creation,
// so every run replaces it.
foreach (WP_Application_Passwords::get_user_application_passwords($admin->ID) as $item) {
    if ($item['name'] === 'tidings-real-test') {
        WP_Application_Passwords::delete_application_password($admin->ID, $item['uuid']);
    }
}
$created = WP_Application_Passwords::create_new_application_password($admin->ID, ['name' => 'tidings-real-test']);
if (is_wp_error($created)) { fwrite(STDERR, $created->get_error_message() . "\n"); exit(1); }

$categories = [];
foreach (['Tidings News', 'Releases'] as $name) {
    $term = term_exists($name, 'category') ?: wp_insert_term($name, 'category');
    if (is_wp_error($term)) { fwrite(STDERR, $term->get_error_message() . "\n"); exit(1); }
    $categories[] = ['id' => (int) $term['term_id'], 'name' => $name];
}

echo json_encode([
    'url' => $url,
    'username' => $user,
    'password' => $pass,
    'applicationPassword' => WP_Application_Passwords::chunk_password($created[0]),
    'categories' => $categories,
    'wordpressVersion' => get_bloginfo('version'),
], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n";
